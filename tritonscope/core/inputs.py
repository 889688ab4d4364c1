"""The variant inputs, declared once: each one's name, Python type, default, help, flags, and the
commands and front ends that take it. Every front end reads this table, as httpie's options are
declared once and its parser and docs derived from them.

- the command line's options (cli/options.py) and a project file's `flags` (its word parser);
- the agent server's tool inputs (agent/inputs.py) and the Python API's keywords: `signature`
  gives a front end its parameters, each annotated its own way (typer.Option, pydantic's Field,
  a plain type), and `taking_request` puts them on a command or tool that takes the `request`
  they make (core/forms.py `request_of` for Python values, cli/options.py `request_from` for text);
- the command lines tritonscope prints (`Variant.command_line`: `command_words`) and the what-ifs'
  wording (analysis/findings/model.py).

Plain data: nothing here imports typer or pydantic (docs/architecture.md).
"""

from __future__ import annotations

import difflib
import functools
import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import UsageError
from .targets import TARGETS
from .values import format_value

# The front ends. A project file's entries ([tool.tritonscope] in pyproject.toml) give the command
# line's flags as words; the Python API takes Python values, as the agent server takes JSON.
CLI, AGENT, API, PROJECT = "cli", "agent", "api", "project"
EVERY_FRONT = frozenset({CLI, AGENT, API, PROJECT})
# The commands that compile one variant of a kernel: each takes FILE and the variant flags. Others
# take a few, in their own order: list, bench, profile, layout (its FILE is `--from`).
COMPILING = frozenset({"dump", "explain", "diff", "check", "fit", "passes", "compare", "report", "grid", "explore"})
WITH_LAYOUT = COMPILING | {"layout"}  # layout compiles a variant of the kernel `--from` names, too
REQUIRED = inspect.Parameter.empty  # the default of an input that must be given

Value = int | float | bool | str | None  # one value as JSON or Python gives it


@dataclass(frozen=True)
class Input:
    """One variant input. `name` is its Python name (the Python API's keyword, the agent's input,
    the request's field where it fills one); `help` is the command line's, `agent_help` what the
    agent server's description says instead where values are JSON. `commands` are the command
    line's commands that take it; every agent tool that compiles a variant takes every input
    whose `fronts` name the agent."""

    name: str
    type: Any  # as a Python value: the agent's JSON type, the Python API's keyword
    default: Any
    help: str
    flag: str | None = None  # None: the command line's positional FILE
    short: str | None = None
    metavar: str | None = None
    pairs: bool = False  # NAME=VALUE items: repeatable on the command line, a mapping as a value
    agent_help: str | None = None
    printed: str | None = None  # the flag printed command lines use, where not the short one
    names: Mapping[str, str] = field(default_factory=dict)  # a front end's name for it, where it differs
    commands: frozenset[str] = COMPILING
    fronts: frozenset[str] = EVERY_FRONT

    def name_in(self, front: str) -> str:
        """Its name in a front end: the command line's is its flag's (`--constexpr`: constexpr)."""
        if front in self.names:
            return self.names[front]
        if front in (CLI, PROJECT) and self.flag:
            return self.flag.lstrip("-").replace("-", "_")
        return self.name

    @property
    def spelled(self) -> str:
        """The flag as printed command lines write it: `-w`, `--target`."""
        return self.printed or self.short or self.flag or self.name

    @property
    def flags(self) -> str:
        """Both spellings, as messages name them: `-c/--constexpr`."""
        return "/".join(f for f in (self.short, self.flag) if f)


_FILE_AGENT_HELP = (
    "The kernel: a Python file (absolute, or relative to the server's working folder), sample:NAME (a bundled "
    "sample, see the samples tool), pkg.module:kernel (a module on the path, e.g. "
    "liger_kernel.ops.rms_norm:_rms_norm_forward_kernel), or DIR/:NAME (a kernel of a capture)."
)
_FROM_RUN_HELP = (
    "Run the file as a learner would (its module code and __main__, a statement at a time, then its test_* and "
    "perf_report functions at their smallest sizes), or the command after --, against a simulated GPU of the "
    "target, stop at the kernel's launch, and compile it as that launch specialized it."
)

INPUTS: tuple[Input, ...] = (
    Input(
        "file",
        str,
        REQUIRED,
        "A kernel file (path/to/kernels.py), a bundled sample (sample:NAME), an installed module's kernel "
        "(pkg.module:kernel) or a capture's (DIR/:NAME).",
        metavar="FILE",
        agent_help=_FILE_AGENT_HELP,
        names={AGENT: "kernel_file", API: "kernel"},  # the Python API's first argument: a path or the kernel
        commands=COMPILING | {"list", "bench", "profile"},
        fronts=frozenset({CLI, AGENT, API}),
    ),
    Input(
        "kernel",
        str | None,
        None,
        "Kernel to compile; needed only when the file has more than one.",
        "--kernel",
        "-k",
        names={API: "kernel_name"},
        commands=COMPILING | {"layout", "bench", "profile"},
    ),
    Input(
        "constexprs",
        dict[str, Value] | None,
        None,
        "A constexpr value: int, float, true/false, None, a dtype (fp16, tl.int32), or a string "
        "(mean; quote to force one: '\"1\"'). Repeatable.",
        "--constexpr",
        "-c",
        metavar="NAME=VALUE",
        pairs=True,
        agent_help='Constexpr values, e.g. {"BLOCK_SIZE": 1024, "ACTIVATION": "relu"}. A string takes the '
        'command line\'s rules: "fp16" is a dtype, "1024" the int; \'"1"\' forces the string.',
        commands=WITH_LAYOUT,
    ),
    Input(
        "args",
        dict[str, Value] | None,
        None,
        "An argument's Triton type (*fp16, *i32, i64) or a scalar's value (n=4096, eps=1e-5, None), "
        "specialized as Triton's launcher would. Repeatable.",
        "--arg",
        "-a",
        metavar="NAME=SPEC",
        pairs=True,
        agent_help='Arguments: a pointer\'s type ("*fp16", "*bf16") or a scalar\'s value (4096, 1e-5, null), '
        'specialized as Triton\'s launcher would (a multiple of 16, the value 1), e.g. {"x_ptr": "*fp16", "n": 4096}.',
        commands=WITH_LAYOUT,
    ),
    Input(
        "dtype",
        str | None,
        None,
        "Element type of pointers not given with -a (default fp32).",
        "--dtype",
        agent_help="Element type of the pointers not given in args (default fp32).",
        commands=WITH_LAYOUT,
    ),
    Input(
        "target",
        str,
        "auto",
        f"{', '.join(TARGETS)}, a GPU's name (h100, a100, b200, mi300 ...), or auto: the local GPU, else sm90 "
        "(sm110 from Triton 3.9).",
        "--target",
        "-t",
        agent_help=f"The GPU to compile for: {', '.join(TARGETS)}; auto: the local GPU, else sm90.",
        printed="--target",
        commands=COMPILING | {"layout", "list"},
    ),
    Input("num_warps", int | None, None, "Warps per program.", "--num-warps", "-w", commands=WITH_LAYOUT),
    Input("num_stages", int | None, None, "Software pipelining depth.", "--num-stages", "-s", commands=WITH_LAYOUT),
    Input("num_ctas", int | None, None, "CTAs per cluster (sm90+).", "--num-ctas", commands=WITH_LAYOUT),
    Input("maxnreg", int | None, None, "Register cap per thread (NVIDIA).", "--maxnreg", commands=WITH_LAYOUT),
    Input(
        "config",
        int | None,
        None,
        "Autotune config to compile (default 0); `tritonscope list` numbers them.",
        "--config",
        agent_help="The autotune config to compile (default 0); list_kernels numbers them.",
        commands=WITH_LAYOUT,
    ),
    Input(
        "no_specialize",
        bool,
        False,
        "Drop all specialization hints (divisibility, alignment, constant 1).",
        "--no-specialize",
        fronts=frozenset({CLI, API, PROJECT}),
        commands=WITH_LAYOUT,
    ),
    Input(
        "triton",
        str | None,
        None,
        "Compile with this Triton release (e.g. 3.9.0), installed on first use into its own environment "
        "under the user cache (`tritonscope envs`). Default: the installed Triton.",
        "--triton",
        metavar="RELEASE",
        agent_help="Compile with this Triton release (e.g. 3.9.0), installed once with `tritonscope envs add`.",
    ),
    Input("from_run", bool, False, _FROM_RUN_HELP, "--from-run", fronts=frozenset({CLI})),
    Input(
        "launch",
        int,
        1,
        "With --from-run: the Nth launch of the kernel (default 1).",
        "--launch",
        metavar="N",
        fronts=frozenset({CLI}),
    ),
    Input(
        "on_read",
        str,
        "host",
        "With --from-run: a read of a device value before the launch gets the value computed on the host "
        "(host, the default), stops the run (stop), or gets 0 (zero) or N. --on-read is the same flag.",
        "--on-read",
        "--values",
        metavar="host|stop|zero|N",
        printed="--values",
        fronts=frozenset({CLI}),
    ),
)


def taken_by(front: str, command: str | None = None) -> tuple[Input, ...]:
    """The inputs a front end takes, in the table's order; on the command line, those of one command."""
    return tuple(i for i in INPUTS if front in i.fronts and (command is None or front != CLI or command in i.commands))


def named(name: str) -> Input:
    """The input of this Python name."""
    return next(i for i in INPUTS if i.name == name)


def signature(
    taken: Iterable[Input], front: str, annotate: Callable[[Input], Any] = lambda i: i.type
) -> list[inspect.Parameter]:
    """The parameters of these inputs in a front end, by its names, each annotated by `annotate`
    (typer.Option on the command line, pydantic's Field in the agent server, the type in Python)."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    return [inspect.Parameter(i.name_in(front), keyword, annotation=annotate(i), default=i.default) for i in taken]


def taking_request(function: Callable, parameters: list[inspect.Parameter], make: Callable[[dict], Any]) -> Callable:
    """`function`, which takes a `request`, as a function of `parameters` and then its own: the
    values of those parameters go to `make`, and `function` gets the request it makes. Typer and the
    MCP SDK read the signature made here."""
    own = typing.get_type_hints(function, include_extras=True)
    keyword = inspect.Parameter.KEYWORD_ONLY
    names = [p.name for p in parameters]
    parameters = parameters + [
        p.replace(kind=keyword, annotation=own[p.name])
        for p in inspect.signature(function).parameters.values()
        if p.name != "request"
    ]

    @functools.wraps(function)
    def with_request(**values):
        given = {name: values.pop(name) for name in names if name in values}
        return function(request=make(given), **values)

    returned = own.get("return", inspect.Signature.empty)
    with_request.__signature__ = inspect.Signature(parameters, return_annotation=returned)  # type: ignore[attr-defined]
    with_request.__annotations__ = {p.name: p.annotation for p in parameters}
    if "return" in own:
        with_request.__annotations__["return"] = returned
    del with_request.__wrapped__  # type: ignore[attr-defined]  # the new signature is read, not the function's
    return with_request


def by_name(values: Mapping[str, Any], front: str) -> dict[str, Any]:
    """Values given by a front end's names, by the inputs' Python names; a name it does not take
    is refused with those it takes, and a required input left out is asked for."""
    taken = {i.name_in(front): i for i in taken_by(front)}
    refuse_unknown(values, list(taken))
    for name, i in taken.items():
        if i.default is REQUIRED and name not in values:
            raise UsageError(f"give {name}: {i.agent_help or i.help}")
    return {taken[name].name: value for name, value in values.items()}


_SAME = {"timeout": "time_limit", "time_limit": "timeout"}  # one input's name for a limit, another's for the same


def _closest(name: str, known: list[str]) -> str | None:
    same = _SAME.get(name)
    return same if same in known else next(iter(difflib.get_close_matches(name, known, n=1)), None)


def refuse_unknown(given: Iterable[str], known: list[str]) -> None:
    """Refuses names that are not among `known` (a typo such as num_warp would otherwise be dropped
    and another variant compiled), naming the closest known name and every one of them."""
    unknown = [name for name in given if name not in known]
    if not unknown:
        return
    close = [found for name in unknown if (found := _closest(name, known))]
    meant = f" (did you mean {', '.join(close)}?)" if close else ""
    said = f"unknown input{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}{meant}"
    raise UsageError(f"{said}. Inputs: {', '.join(known) or 'none'}")


def command_words(values: Mapping[str, Any]) -> list[str]:
    """The words that ask for these values, by the inputs' Python names, in the order given: each
    one's flag as printed (`-w 8`, `--target sm90`), a pair's once per NAME=VALUE, a switch alone;
    nothing for a value at its default."""
    words: list[str] = []
    for name, value in values.items():
        i = named(name)
        if value is None or value == i.default or (i.pairs and not value):
            continue
        if i.type is bool:
            words.append(i.spelled)
        elif i.pairs:
            words += [word for key, item in value.items() for word in (i.spelled, f"{key}={format_value(item)}")]
        else:
            words += [i.spelled, str(value)]
    return words
