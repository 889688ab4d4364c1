"""Options shared by commands, declared once, and the variant flags turned into a VariantRequest."""

from __future__ import annotations

import functools
import inspect
import typing
from pathlib import Path
from typing import Annotated

import typer

from ..core import fileio
from ..core.errors import UsageError
from ..core.model import FromRun, VariantRequest
from ..core.targets import TARGETS
from . import argtypes

FileArg = Annotated[
    str, typer.Argument(help="A kernel file (path/to/kernels.py) or a bundled sample (sample:NAME).", metavar="FILE")
]
OptionalFileArg = Annotated[
    str | None,
    typer.Argument(
        help="A kernel file or sample:NAME; without it, the entries of [tool.tritonscope] in pyproject.toml.",
        metavar="[FILE]",
    ),
]
KernelOpt = Annotated[
    str | None, typer.Option("--kernel", "-k", help="Kernel to compile; needed only when the file has more than one.")
]
ConstexprOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--constexpr",
        "-c",
        metavar="NAME=VALUE",
        help="A constexpr value: int, float, true/false, None, a dtype (fp16, tl.int32), or a string "
        "(mean; quote to force one: '\"1\"'). Repeatable.",
    ),
]
ArgOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--arg",
        "-a",
        metavar="NAME=SPEC",
        help="An argument's Triton type (*fp16, *i32, i64) or a scalar's value (n=4096, eps=1e-5, None), "
        "specialized as Triton's launcher would. Repeatable.",
    ),
]
DtypeOpt = Annotated[
    str | None, typer.Option("--dtype", help="Element type of pointers not given with -a (default fp32).")
]
TargetOpt = Annotated[
    str,
    typer.Option(
        "--target",
        "-t",
        help=f"{', '.join(TARGETS)}, or auto: the local GPU, else sm90 (sm110 from Triton 3.9).",
    ),
]
WarpsOpt = Annotated[int | None, typer.Option("--num-warps", "-w", help="Warps per program.")]
StagesOpt = Annotated[int | None, typer.Option("--num-stages", "-s", help="Software pipelining depth.")]
CtasOpt = Annotated[int | None, typer.Option("--num-ctas", help="CTAs per cluster (sm90+).")]
MaxnregOpt = Annotated[int | None, typer.Option("--maxnreg", help="Register cap per thread (NVIDIA).")]
ConfigOpt = Annotated[
    int | None,
    typer.Option("--config", help="Autotune config to compile (default 0); `tritonscope list` numbers them."),
]
NoSpecializeOpt = Annotated[
    bool, typer.Option("--no-specialize", help="Drop all specialization hints (divisibility, alignment, constant 1).")
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
        help="Seconds the kernel file's own code (its import, heuristics, the interpreter) and each compile may run.",
    ),
]
TritonOpt = Annotated[
    str | None,
    typer.Option(
        "--triton",
        metavar="RELEASE",
        help="Compile with this Triton release (e.g. 3.9.0), installed on first use into its own environment "
        "under the user cache (`tritonscope envs`). Default: the installed Triton.",
    ),
]
FromRunOpt = Annotated[
    bool,
    typer.Option(
        "--from-run",
        help="Run the file as a learner would (its module code and __main__, a statement at a time, then its "
        "test_* and perf_report functions at their smallest sizes), or the command after --, against a simulated "
        "GPU of the target, stop at the kernel's launch, and compile it as that launch specialized it.",
    ),
]
LaunchOpt = Annotated[
    int, typer.Option("--launch", metavar="N", help="With --from-run: the Nth launch of the kernel (default 1).")
]
OnReadOpt = Annotated[
    str,
    typer.Option(
        "--values",
        "--on-read",
        metavar="host|stop|zero|N",
        help="With --from-run: a read of a device value before the launch gets the value computed on the host "
        "(host, the default), stops the run (stop), or gets 0 (zero) or N.",
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

_VARIANT_FLAGS = {
    "kernel": (KernelOpt, None),
    "constexpr": (ConstexprOpt, None),
    "arg": (ArgOpt, None),
    "dtype": (DtypeOpt, None),
    "target": (TargetOpt, "auto"),
    "num_warps": (WarpsOpt, None),
    "num_stages": (StagesOpt, None),
    "num_ctas": (CtasOpt, None),
    "maxnreg": (MaxnregOpt, None),
    "config": (ConfigOpt, None),
    "no_specialize": (NoSpecializeOpt, False),
    "triton": (TritonOpt, None),
    "from_run": (FromRunOpt, False),
    "launch": (LaunchOpt, 1),
    "on_read": (OnReadOpt, "host"),
}


def variant_flags(command=None, *, file_optional: bool = False):
    """Gives a command FILE and the variant flags, the same in every command that compiles.

    The command declares a `request` parameter instead; typer sees FILE, the variant flags,
    then the command's own options. With `file_optional`, FILE may be left out: the command
    then gets `request=None`, and variant flags without a FILE are refused.
    """
    if command is None:
        return functools.partial(variant_flags, file_optional=file_optional)
    own = typing.get_type_hints(command, include_extras=True)
    keyword = inspect.Parameter.KEYWORD_ONLY
    if file_optional:
        parameters = [inspect.Parameter("file", keyword, annotation=OptionalFileArg, default=None)]
    else:
        parameters = [inspect.Parameter("file", keyword, annotation=FileArg)]
    parameters += [inspect.Parameter(n, keyword, annotation=a, default=d) for n, (a, d) in _VARIANT_FLAGS.items()]
    parameters.append(inspect.Parameter("context", keyword, annotation=typer.Context))  # its args: after --
    parameters += [
        p.replace(kind=keyword, annotation=own[p.name])
        for p in inspect.signature(command).parameters.values()
        if p.name != "request"
    ]

    @functools.wraps(command)
    def with_request(**values):
        flags = {name: values.pop(name) for name in ("file", *_VARIANT_FLAGS)}
        flags["run_command"] = tuple(values.pop("context").args)
        if flags["file"] is None:
            given = [name for name, (_, default) in _VARIANT_FLAGS.items() if flags[name] not in (default, None, [])]
            if given:
                raise UsageError(f"variant flags ({', '.join(given)}) need a FILE")
            return command(request=None, **values)
        return command(request=_from_its_run(request_from(flags)), **values)

    with_request.__signature__ = inspect.Signature(parameters)
    with_request.__annotations__ = {p.name: p.annotation for p in parameters}
    with_request.context_settings = {"allow_extra_args": True}  # `--from-run -- COMMAND...`
    del with_request.__wrapped__  # typer must read the new signature, not the command's
    return with_request


def _from_its_run(request: VariantRequest) -> VariantRequest:
    """A `--from-run` request as the kernel its launch compiled, with a line saying which launch."""
    if request.from_run is None:
        return request
    from ..app.from_run import resolve
    from .app import progress, say

    with progress(f"running {request.file} to the launch"):
        resolved, launch = resolve(request)
    if launch is not None:  # always, for a --from-run request
        say(launch.describe())
    return resolved


def _from_run(flags: dict) -> FromRun | None:
    command, launch = tuple(flags.get("run_command") or ()), flags.get("launch") or 1
    on_read = flags.get("on_read") or "host"
    if not flags.get("from_run"):
        if command:
            raise UsageError(f"unexpected words: {' '.join(command)} (a command after -- goes with --from-run)")
        if launch != 1 or on_read != "host":
            raise UsageError("--launch N and --values go with --from-run")
        return None
    if launch < 1:
        raise UsageError(f"--launch {launch}: launches are counted from 1")
    return FromRun(launch=launch, command=command, on_read=argtypes.on_read_value(on_read))


def request_from(flags: dict) -> VariantRequest:
    from ..app import releases
    from ..core import forms
    from .installs import ensure_release

    given = flags.get("target")  # an empty one (`-t "$TARGET"`, the variable unset) is refused, not taken for auto
    target = argtypes.target_name("auto" if given is None else given)  # an unknown --target fails here, before work
    release = releases.checked(flags["triton"]) if flags.get("triton") else None
    ensure_release(release)  # installed now, its download shown, if it is another release's first use
    source = argtypes.source(flags["file"])
    request = forms.variant_request(
        source,
        flags.get("kernel"),
        constexprs=argtypes.assignments(flags.get("constexpr"), "-c/--constexpr"),
        args=argtypes.assignments(flags.get("arg"), "-a/--arg"),
        dtype=argtypes.check_dtype(flags["dtype"]) if flags.get("dtype") else None,
        target=target,
        num_warps=flags.get("num_warps"),
        num_stages=flags.get("num_stages"),
        num_ctas=flags.get("num_ctas"),
        maxnreg=flags.get("maxnreg"),
        config=flags.get("config"),
        specialize=not flags.get("no_specialize", False),
        triton=release,
        from_run=_from_run(flags),
    )
    fileio.note_read(request.file)  # no output of this run may replace the kernel file
    return request


_WORD_FLAGS = {
    "-k": "kernel",
    "--kernel": "kernel",
    "-c": "constexpr",
    "--constexpr": "constexpr",
    "-a": "arg",
    "--arg": "arg",
    "--dtype": "dtype",
    "-t": "target",
    "--target": "target",
    "-w": "num_warps",
    "--num-warps": "num_warps",
    "-s": "num_stages",
    "--num-stages": "num_stages",
    "--num-ctas": "num_ctas",
    "--maxnreg": "maxnreg",
    "--config": "config",
    "--triton": "triton",
}
_INT_FLAGS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "config")


def request_from_words(file: str, words: list[str], where: str) -> VariantRequest:
    """The variant flags of a command line given as words (a project file's `flags`), as a request."""
    flags: dict = {"file": file, "constexpr": [], "arg": []}
    items = iter(words)
    for word in items:
        if word == "--no-specialize":
            flags["no_specialize"] = True
            continue
        name, sep, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        key = _WORD_FLAGS.get(name)
        if key is None:
            raise UsageError(
                f"{where}: '{word}' is not a variant flag. Flags: {', '.join(_WORD_FLAGS)}, --no-specialize"
            )
        value = inline if sep else next(items, None)
        if value is None:
            raise UsageError(f"{where}: {name} needs a value")
        if key in _INT_FLAGS:
            try:
                flags[key] = int(value)
            except ValueError:
                raise UsageError(f"{where}: {name} expects an integer, got '{value}'") from None
        elif key in ("constexpr", "arg"):
            flags[key].append(value)
        else:
            flags[key] = value
    return request_from(flags)
