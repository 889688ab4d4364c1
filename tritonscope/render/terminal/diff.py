"""`tritonscope diff` in the terminal: one resource row per variant, then the stage diffs."""

from __future__ import annotations

from rich.console import Console, RenderableType
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from ...analysis.diffing import StageDiff
from ...app.sweep import Outcome
from ...core.model import Compilation
from ...core.results import DiffResult
from ...core.targets import TARGETS
from .base import TerminalRenderer
from .dump import THEME, highlight, widths

_ROW_STYLE = {"replace": "yellow", "delete": "red", "insert": "green"}


def resource_columns(c: Compilation) -> dict[str, str]:
    r, mix = c.resources, c.resources.instructions
    occupancy = f"{r.occupancy.percent:.0f}% ({r.occupancy.limited_by})"
    return {
        "target": c.variant.target,
        "registers": str(r.registers),
        "spills": str(r.spills),
        "shared memory": f"{r.shared_bytes:,} B",
        "local memory": f"{r.local_bytes} B",
        "occupancy": occupancy,
        "instructions": str(mix.total),
        "global loads": widths(mix.global_loads),
        "global stores": widths(mix.global_stores),
        "async copies": str(mix.async_copies),
        "shared loads/stores": f"{mix.shared_loads}/{mix.shared_stores}",
        "matrix ops": str(mix.matrix),
        "barriers": str(mix.barriers),
        "local loads/stores": f"{mix.local_loads}/{mix.local_stores}",
    }


LEGEND = "global loads/stores: count x bits per thread; local loads/stores are register spills"


def figure_rows(outcomes: list[Outcome]) -> list[tuple[str, list[str], bool]]:
    """(figure, its value in each variant, whether the values differ), failed variants left blank."""
    rows = [resource_columns(o.compilation) if o.ok else None for o in outcomes]
    names = list(next((r for r in rows if r), {}))
    figures = []
    for name in names:
        values = [row[name] if row else "" for row in rows]
        figures.append((name, values, len({v for v, row in zip(values, rows, strict=True) if row}) > 1))
    return figures


def resource_table(outcomes: list[Outcome]) -> Table:
    """One column per variant, one row per figure; rows whose values differ are marked with *."""
    table = Table(
        title="variants (* = differs between variants)",
        title_justify="left",
        header_style="bold",
        caption=LEGEND,
        caption_justify="left",
    )
    table.add_column("")
    for index, outcome in enumerate(outcomes):
        table.add_column(f"[{index}] {outcome.describe()}", justify="right")
    for name, values, differs in figure_rows(outcomes):
        table.add_row(name + (" *" if differs else ""), *values, style="bold yellow" if differs else None)
    if not all(o.ok for o in outcomes):
        table.add_row(
            "status", *[Text("ok") if o.ok else Text(f"FAILED: {o.error}", style="bold red") for o in outcomes]
        )
    return table


def diff_panel(diff: StageDiff, outcomes: list[Outcome], side: bool) -> RenderableType:
    old, new = outcomes[diff.old].describe(), outcomes[diff.new].describe()
    title = f"{diff.stage.title}: [{diff.old}] {old}  →  [{diff.new}] {new}"
    if not diff.changed:
        return Panel(Text("identical after normalization", style="dim"), title=title, title_align="left")
    if side:
        body = _side_by_side(diff, old, new)
    else:
        text = "\n".join(diff.unified(old, new))
        body = Syntax(text, "diff", theme=THEME, word_wrap=True)
    return Panel(body, title=title, title_align="left", border_style="magenta")


def _side_by_side(diff: StageDiff, old: str, new: str) -> Table:
    table = Table(expand=True, box=None, padding=(0, 1), show_header=True, header_style="bold")
    table.add_column(old, ratio=1, overflow="fold")
    table.add_column(new, ratio=1, overflow="fold")
    for tag, left, right in diff.rows():
        if tag == "skip":
            table.add_row(Text("⋯", style="dim"), Text("⋯", style="dim"))
            continue
        style = _ROW_STYLE.get(tag)
        cells = []
        for line in (left, right):
            cell = highlight(line, diff.stage) if line is not None else Text("")
            if style:
                cell.stylize(f"on grey15 {style}" if tag != "equal" else "")
            cells.append(cell)
        table.add_row(*cells)
    return table


class DiffView(TerminalRenderer):
    def __init__(self, terminal=None, side_by_side: bool = False):
        super().__init__(terminal)
        self.side_by_side = side_by_side

    def draw(self, console: Console, result: DiffResult) -> None:
        _draw(console, list(result.outcomes), list(result.diffs), self.side_by_side, list(result.missing))


def _draw(console: Console, outcomes: list[Outcome], diffs: list[StageDiff], side: bool, missing: list[str]) -> None:
    first = next((o.compilation for o in outcomes if o.ok), None)
    if first is not None:
        target = TARGETS[first.variant.target]
        console.print(
            Text(
                f"{first.kernel.name} ({first.kernel.file}), {len(outcomes)} variants; first on {target.name}",
                style="dim",
            )
        )
    console.print(resource_table(outcomes))
    for note in missing:
        console.print(Text(note, style="yellow"))
    for diff in diffs:
        console.print(diff_panel(diff, outcomes, side))
