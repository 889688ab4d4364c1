"""`tritonscope list`: the kernels of a file, their parameters, autotune configs and heuristics."""

from __future__ import annotations

import textwrap

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...core.model import ParamKind
from ...core.quantities import plural
from ...results.catalog import KernelList
from .base import TerminalRenderer, print_unpadded

TYPE_FROM = {
    "annotation": "annotated",
    "default": "from its default",
    "body": "inferred from the body",
    "branch": "inferred from an if's branch (a value may do where it is not taken)",
    "assumed": "assumed (give -a NAME=TYPE or a value)",
    "file": "from the file",
}


class ListingView(TerminalRenderer):
    def draw(self, console: Console, result: KernelList) -> None:
        counts = _counts(result.kernels)
        heading = Text(f"{result.path}", style="bold") + Text(f": {counts}")
        if len(heading) > console.width:  # the path alone on its line, never split (it is copied whole)
            heading = Text(f"{result.path}", style="bold") + Text(f"\n    {counts}")
        console.print(heading, soft_wrap=True)
        for notice in result.notices:
            console.print(Text(notice, style="dim"))
        console.print()
        for spec in result.kernels:
            _draw_kernel(console, spec, result.defaults)


def _role(spec) -> str:
    if not spec.is_helper:
        return "kernel"
    called = f"called by {', '.join(spec.called_by)}" if spec.called_by else "no kernel of this file calls it"
    returns = "returns a value, " if spec.returns_value else ""
    return f"helper ({returns}{called})"


def _from_calls(spec) -> str:
    """How a helper's untyped parameter gets its type: from the calls, so -a (a kernel's) does not apply."""
    if not spec.called_by:
        return "from a call (none here)"
    return f"from the call in {', '.join(spec.called_by)}"


def _counts(kernels) -> str:
    """`3 @triton.jit functions`, or both decorators' counts in a file that mixes them."""
    counts: dict[str, int] = {}
    for spec in kernels:
        counts[spec.language.decorator] = counts.get(spec.language.decorator, 0) + 1
    parts = [f"{n} {decorator}" for decorator, n in counts.items()] or ["0 @triton.jit"]
    return " and ".join(parts) + f" {plural(len(kernels), 'function')}"


def _draw_kernel(console: Console, spec, defaults: dict) -> None:
    role = _role(spec)
    wrappers = f", {spec.wrappers}" if spec.wrappers else ""
    wrappers += ", Gluon" if spec.language.value == "gluon" else ""
    title = Text(f"{spec.name}  line {spec.line}  ") + Text(f"{role}{wrappers}", style="dim")
    table = Table(title=title, title_justify="left")
    for column in ("parameter", "kind", "type", "default"):
        table.add_column(column, no_wrap=True)  # whole at 80 columns: the words of the last column wrap instead
    table.add_column("how the type was found", overflow="fold")
    for p in spec.params:
        kind, type_, how = p.kind.value, "-" if p.kind is ParamKind.CONSTEXPR else p.type, TYPE_FROM[p.type_from]
        if p.kind is ParamKind.POINTER and p.type_from == "file":
            type_ = f"{p.type} (file)"  # what dump compiles
        elif p.kind is ParamKind.POINTER and p.type_from != "annotation":
            type_ = f"{p.type} (indices)" if p.type == "*i32" else f"{p.type} (--dtype)"
        # no -a reaches a helper: its caller's call types it
        if spec.is_helper and p.type_from in ("body", "branch", "assumed"):
            kind, type_, how = "-", "-", _from_calls(spec)
        default = repr(p.default) if p.has_default else ""
        if p.name in defaults:
            default = f"{defaults[p.name]!r} (file)"
        table.add_row(p.name, kind, type_, default, how)
    print_unpadded(console, table)
    for config in spec.autotune_configs:  # folded under its own start, not at column 0
        said = f"autotune config {config.index}: {config.describe()}"
        folded = textwrap.fill(said, console.width, initial_indent="  ", subsequent_indent="    ")
        console.print(folded, markup=False, highlight=False)
    for name in spec.heuristics:
        console.print(f"  heuristic computes: {name}")
    console.print()
