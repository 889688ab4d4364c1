"""`tritonscope passes`: the pass pipeline as a table, and what chosen passes did."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from ...analysis import normalize
from ...analysis.passes import LlvmPassRecord, PassRecord
from ...core.model import Variant
from ...core.results import PassesResult
from ...core.stages import Stage
from .base import TerminalRenderer
from .dump import THEME, numbered


def table(records: list[PassRecord], title: str) -> Table:
    view = Table(title=title, title_justify="left", header_style="bold")
    for column, justify in (
        ("#", "right"),
        ("pass", "left"),
        ("class", "left"),
        ("level", "left"),
        ("changed", "left"),
        ("+lines", "right"),
        ("-lines", "right"),
        ("run", "left"),
    ):
        view.add_column(column, justify=justify)
    for r in records:
        changed = "?" if r.changed is None else ("yes" if r.changed else "")
        run = f"{r.occurrence} of {r.occurrences}" if r.occurrences > 1 else ""
        substeps = f" (+{len(r.substeps)} steps)" if r.substeps else ""
        view.add_row(
            str(r.index),
            r.name + substeps,
            r.class_name,
            r.level,
            changed,
            str(r.added) if r.changed else "",
            str(r.removed) if r.changed else "",
            run,
            style="bold" if r.changed else "dim",
        )
    return view


def llvm_table(records: list[LlvmPassRecord]) -> Table:
    view = Table(title="LLVM passes (LLVM IR after each)", title_justify="left", header_style="bold")
    for column in ("#", "pass", "on", "changed", "+lines", "-lines"):
        view.add_column(column, justify="right" if column in ("#", "+lines", "-lines") else "left")
    for r in records:
        view.add_row(
            str(r.index),
            r.name,
            Text(r.scope),  # `[module]` is no style tag
            "yes" if r.changed else "",
            str(r.added) if r.changed else "",
            str(r.removed) if r.changed else "",
            style="bold" if r.changed else "dim",
        )
    return view


def shown(record: PassRecord, full: bool, keep_loc: bool) -> Panel:
    title = f"pass {record.index}: {record.label} ({record.class_name}) on {record.level}"
    parts = []
    if full:
        ir = record.after if record.after is not None else record.before
        lines = normalize.shown(Stage.TTGIR, ir, keep_loc)
        parts.append(numbered(lines, Stage.TTGIR, 1))
        title += ": the IR after it" if record.after is not None else ": the IR before it (the after is unknown)"
    elif record.changed is False:
        parts.append(Text("no change (after normalization)", style="dim"))
    elif record.after is None:
        parts.append(Text("the IR after this pass was not dumped", style="yellow"))
    else:
        parts.append(Syntax("\n".join(record.diff()), "diff", theme=THEME, word_wrap=True))
    for name, _ in record.substeps:
        parts.append(Text(f"internal step: {name}", style="cyan"))
    return Panel(Group(*parts), title=title, title_align="left", border_style="magenta")


class PassesView(TerminalRenderer):
    def __init__(self, terminal=None, only_changed: bool = False, full: bool = False, keep_loc: bool = False):
        super().__init__(terminal)
        self.only_changed, self.full, self.keep_loc = only_changed, full, keep_loc

    def draw(self, console: Console, result: PassesResult) -> None:
        selected = list(result.selected) if result.selected is not None else None
        llvm = list(result.llvm_records) if result.llvm_records is not None else None
        records = list(result.records)
        _draw(console, result.variant, records, llvm, self.only_changed, selected, self.full, self.keep_loc)


def _draw(
    console: Console,
    variant: Variant,
    records: list[PassRecord],
    llvm: list[LlvmPassRecord] | None,
    only_changed: bool,
    selected: list[PassRecord] | None,
    full: bool,
    keep_loc: bool,
) -> None:
    changed = sum(1 for r in records if r.changed)
    console.print(
        Text(f"{variant.kernel} on {variant.target}: {len(records)} MLIR passes, {changed} changed the IR", style="dim")
    )
    if selected is None:
        rows = [r for r in records if r.changed] if only_changed else records
        console.print(table(rows, "MLIR passes (IR before each, in order)"))
        if llvm is not None:
            console.print(llvm_table([r for r in llvm if r.changed] if only_changed else llvm))
        return
    for record in selected:
        console.print(shown(record, full, keep_loc))
