"""Options shared by commands, and the variant inputs (core/inputs.py) as typer options, turned into a request."""

from __future__ import annotations

import functools
import inspect
import typing
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from ..core import fileio, inputs
from ..core.errors import UsageError
from ..core.model import FromRun, VariantRequest
from ..core.source import CachedKernel
from . import argtypes


def _typer(i: inputs.Input) -> Any:
    """An input's typer.Option, from its row of the table; FILE's typer.Argument."""
    if i.flag is None:
        return typer.Argument(help=i.help, metavar=i.metavar)
    return typer.Option(*filter(None, [i.short]), i.flag, help=i.help, metavar=i.metavar)


def _option(i: inputs.Input) -> Any:
    """An input as typer's annotation; NAME=VALUE pairs are repeated words."""
    return Annotated[list[str] | None if i.pairs else i.type, _typer(i)]


# The inputs that list, bench, profile and layout take one by one, in their own order.
FileArg = Annotated[str, _typer(inputs.named("file"))]
KernelOpt = Annotated[str | None, _typer(inputs.named("kernel"))]
ConstexprOpt = Annotated[list[str] | None, _typer(inputs.named("constexprs"))]
ArgOpt = Annotated[list[str] | None, _typer(inputs.named("args"))]
TargetOpt = Annotated[str, _typer(inputs.named("target"))]
WarpsOpt = Annotated[int | None, _typer(inputs.named("num_warps"))]
StagesOpt = Annotated[int | None, _typer(inputs.named("num_stages"))]
CtasOpt = Annotated[int | None, _typer(inputs.named("num_ctas"))]
MaxnregOpt = Annotated[int | None, _typer(inputs.named("maxnreg"))]
DtypeOpt = Annotated[str | None, _typer(inputs.named("dtype"))]
ConfigOpt = Annotated[int | None, _typer(inputs.named("config"))]
NoSpecializeOpt = Annotated[bool, _typer(inputs.named("no_specialize"))]
OptionalFileArg = Annotated[
    str | None,
    typer.Argument(
        help="A kernel file or sample:NAME; without it, the entries of [tool.tritonscope] in pyproject.toml.",
        metavar="[FILE]",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document instead (docs/json-schema.md).")]
LineOpt = Annotated[
    int | None, typer.Option("--line", metavar="N", help="Show only what line N of the kernel file became.")
]
LinesOpt = Annotated[str | None, typer.Option("--lines", metavar="A-B", help="Show only what lines A to B became.")]
KeepLocOpt = Annotated[
    bool, typer.Option("--keep-loc", help="Keep location noise (loc(...), !dbg, .loc, //## File) in the IR.")
]
WrapOpt = Annotated[
    bool, typer.Option("--wrap", help="Fold long lines instead of cutting them at the edge (where … marks a cut).")
]
TimeoutOpt = Annotated[
    float,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        help="Seconds the kernel file's own code may run (its import, heuristics, the interpreter); in diff, fit "
        "and check, each variant's compile too (a compile in this process is not cut short).",
    ),
]


ClusterOpt = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        metavar="ADDRESS",
        envvar="TRITONSCOPE_CLUSTER",
        help="Compile on this Ray cluster: auto, HOST:PORT or ray://HOST:PORT (needs tritonscope[cluster]). "
        "Default: $TRITONSCOPE_CLUSTER, else this machine's workers.",
    ),
]
WatchOpt = Annotated[
    bool,
    typer.Option("--watch", help="Draw it again every time the kernel file is saved (in any editor), until Ctrl-C."),
]
HtmlOpt = Annotated[Path | None, typer.Option("--html", metavar="FILE", help="Also write an HTML report.")]


def variant_flags(command=None, *, file_optional: bool = False, resolve_target: bool = True):
    """Gives a command FILE and the variant flags it takes (core/inputs.py), the same in every
    command that compiles.

    The command declares a `request` parameter instead; typer sees FILE, the variant flags,
    then the command's own options. With `file_optional`, FILE may be left out: the command
    then gets `request=None`, and variant flags without a FILE are refused. The request's
    `--target auto` is resolved, its notice said once, unless `resolve_target` is False (`fit`
    reads `auto` itself: every target).
    """
    if command is None:
        return functools.partial(variant_flags, file_optional=file_optional, resolve_target=resolve_target)
    taken = inputs.taken_by(inputs.CLI, command.__name__)
    parameters = [_repeatable_target(p) for p in inputs.signature(taken, inputs.CLI, _option)]
    if file_optional:
        parameters[0] = parameters[0].replace(annotation=OptionalFileArg, default=None)
    context = inspect.Parameter("context", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context)
    make = functools.partial(_request, taken, resolve_target)
    with_request = inputs.taking_request(command, [*parameters, context], make)
    with_request.context_settings = {"allow_extra_args": True}  # type: ignore[attr-defined]  # `--from-run -- COMMAND...`
    return with_request


def _repeatable_target(parameter: inspect.Parameter) -> inspect.Parameter:
    """--target as a repeatable option: `-t sm80 -t sm90` kept only sm90, without a word (fit takes
    both as its columns; a command of one target refuses the second)."""
    if parameter.name != "target":
        return parameter
    annotation = Annotated[list[str], _typer(inputs.named("target"))]
    return parameter.replace(annotation=annotation, default=[parameter.default])  # shown: [default: auto]


def _request(taken: tuple[inputs.Input, ...], resolve_target: bool, flags: dict) -> VariantRequest | None:
    """The request of a command's variant flags; None without a FILE, where no flag may be given."""
    context = flags.pop("context")
    flags["run_command"] = tuple(context.args)  # the words after --
    if flags["file"] is None:
        given = [
            i.name_in(inputs.CLI)
            for i in taken
            if flags[i.name_in(inputs.CLI)] not in (i.default, [i.default], None, [])
        ]
        if given:
            raise UsageError(f"variant flags ({', '.join(given)}) need a FILE")
        return None
    request = request_from(flags, resolve_target=resolve_target)
    axes = [str(axis) for name in ("vary", "space") for axis in context.params.get(name) or ()]
    if any(axis.startswith("target=") for axis in axes):  # each variant names its own target
        request = replace(request, target_notice=None)
    return _from_its_run(told(request))


def told(request: VariantRequest) -> VariantRequest:
    """The request, its target's notice said: once per command, where the request was made."""
    from ..core.source import KernelFile, SampleKernel, local_file
    from .messages import say

    read = isinstance(request.source, (KernelFile, SampleKernel))  # a file that is there, or refused next
    found = local_file(request.source) if read else None
    missing = read and not (found and found.exists())
    if request.target_notice and not missing:  # a file not there is refused next: that alone is said
        say(request.target_notice, "dim")
    return request


def _from_its_run(request: VariantRequest) -> VariantRequest:
    """A `--from-run` request as the kernel its launch compiled, with a line saying which launch."""
    if request.from_run is None:
        return request
    from ..app.walk.from_run import resolve_from_run
    from .messages import progress, say

    with progress(f"running {request.file} to the launch"):
        resolved, launch = resolve_from_run(request)
    if launch is not None:  # always, for a --from-run request
        say(launch.describe())
        for line in launch.skipped:
            say(f"  {line}", "dim")
        if not isinstance(resolved.source, CachedKernel):  # a captured compile holds its launch itself
            resolved = replace(resolved, run_grid=launch.grid)
    return resolved


def _from_run(given: dict, command: tuple[str, ...]) -> FromRun | None:
    """--from-run, --launch and --values (taken out of `given`) and the command after --."""
    launch, on_read = given.pop("launch", None) or 1, given.pop("on_read", None) or "host"
    if not given.pop("from_run", False):
        if command:
            raise UsageError(f"unexpected words: {' '.join(command)} (a command after -- goes with --from-run)")
        if launch != 1 or on_read != "host":
            raise UsageError("--launch N and --values go with --from-run")
        return None
    if launch < 1:
        raise UsageError(f"--launch {launch}: launches are counted from 1")
    return FromRun(launch=launch, command=command, on_read=argtypes.on_read_value(on_read))


def request_from(flags: dict, resolve_target: bool = True) -> VariantRequest:
    """The request of the variant flags as typer gives them, by their parameter names (`constexpr`:
    the -c items): each text typed once; the kernel's name, the options and the config as typer typed them."""
    from ..app.walk import releases
    from ..core import forms
    from .installs import ensure_release

    given = {i.name: flags[i.name_in(inputs.CLI)] for i in inputs.INPUTS if i.name_in(inputs.CLI) in flags}
    target = target_of(given.pop("target", None), several=not resolve_target)  # an unknown one fails before any work
    named_release = given.pop("triton", None)
    release = releases.checked(named_release) if named_release else None
    ensure_release(release)  # installed now, its download shown, if it is another release's first use
    source = argtypes.source(given.pop("file"))
    pairs: dict[str, Any] = {
        name: argtypes.assignments(given.pop(name, None), inputs.named(name).flags) for name in ("constexprs", "args")
    }
    dtype = given.pop("dtype", None)
    request = forms.variant_request(
        source,
        **pairs,
        dtype=argtypes.check_dtype(dtype) if dtype else None,
        target=target,
        specialize=not given.pop("no_specialize", False),
        triton=release,
        from_run=_from_run(given, tuple(flags.get("run_command") or ())),
        **given,
        resolve_target=resolve_target,
    )
    fileio.note_read(request.file)  # no output of this run may replace the kernel file
    return request


def target_of(given: str | list[str] | None, several: bool) -> str:
    """The --target given, by its name (an empty one, `-t "$TARGET"` with the variable unset, is refused,
    not taken as auto); `-t A -t B` as `A,B` where the command takes several (fit: its columns)."""
    names = given if isinstance(given, list) else ["auto" if given is None else given]
    if len(names) > 1 and not several:
        raise UsageError(
            f"--target is given {len(names)} times ({', '.join(names)}): this command compiles for one target",
            hint=f"compare them with diff --vary target={','.join(names)}; fit takes several",
        )
    return ",".join(argtypes.target_name(name) for name in names or ["auto"])


def request_from_words(file: str, words: list[str], where: str) -> VariantRequest:
    """The variant flags of a command line given as words (a project file's `flags`), as a request."""
    taken = {spelling: i for i in inputs.taken_by(inputs.PROJECT) for spelling in (i.short, i.flag) if spelling}
    flags: dict = {i.name_in(inputs.PROJECT): [] for i in taken.values() if i.pairs} | {"file": file}
    items = iter(words)
    for word in items:
        name, sep, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        i = taken.get(name)
        if i is None:
            raise UsageError(f"{where}: '{word}' is not a variant flag. Flags: {', '.join(taken)}")
        key = i.name_in(inputs.PROJECT)
        if i.type is bool and not sep:
            flags[key] = True
            continue
        value = inline if sep else next(items, None)
        if value is None or i.type is bool:
            raise UsageError(f"{where}: {name} " + ("takes no value" if i.type is bool else "needs a value"))
        if i.pairs:
            flags[key].append(value)
        else:
            flags[key] = _integer(value, name, where) if int in (i.type, *typing.get_args(i.type)) else value
    return request_from(flags)


def _integer(value: str, flag: str, where: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise UsageError(f"{where}: {flag} expects an integer, got '{value}'") from None
