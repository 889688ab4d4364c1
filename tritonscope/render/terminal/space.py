"""`diff --space` in the terminal: a summary line, failures by cause, the Pareto set and the top N,
as tables that fit 80 columns (axis names and long values are cut, figures never are)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...core.quantities import count
from ...results.space import SpacePoint, SpaceResult
from .base import TerminalRenderer

_FIGURES: tuple[tuple[str, str], ...] = (("registers", "regs"), ("spills", "spill"), ("shared", "smem"))
_FIGURES += (("occupancy", "occ%"), ("instructions", "instrs"), ("findings", "finds"))


class SpaceView(TerminalRenderer):
    def draw(self, console: Console, result: SpaceResult) -> None:
        within = sum(1 for p in result.points if p.cause is None)
        console.print(Text(f"{count(len(result.points), 'config')}, {within} compiled within the limits", style="bold"))
        if result.failures:
            counts = ", ".join(f"{cause} {n}" for cause, n in sorted(result.failures.items()))
            console.print(Text(f"failed or over a limit: {counts}", style="red"))
        if result.static:
            console.print(Text("static figures from the compile (no GPU ran); time them with `bench --space`", "dim"))
        console.print()
        console.print(Text(f"Pareto set ({len(result.pareto)}): no other config is better on every figure", "bold"))
        console.print(_table(result, result.pareto))
        if result.top and len(result.top) < within:
            console.print()
            console.print(Text(f"Top {len(result.top)} by {result.sort}", style="bold"))
            console.print(_table(result, result.top))


def _table(result: SpaceResult, indices: tuple[int, ...]) -> Table:
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    for axis in result.axes:
        table.add_column(axis, overflow="ellipsis", no_wrap=True, max_width=12)
    for _, short in _FIGURES:
        table.add_column(short, justify="right", no_wrap=True)
    for index in indices:
        table.add_row(*_row(result.points[index], result.axes))
    return table


def _row(point: SpacePoint, axes: tuple[str, ...]) -> list[str]:
    figures = point.figures or {}
    shared = figures.get("shared", 0)
    values = [str(figures.get(name, "")) for name, _ in _FIGURES]
    values[2] = f"{shared / 1024:.0f}K" if shared >= 1024 else str(shared)
    values[3] = f"{figures.get('occupancy', 0):g}"
    return [point.label.get(axis, "") for axis in axes] + values
