"""A whole launch's time in the terminal (`explain`): the estimate and what bounds it, then each of the
launch's limits with what it is made of, largest first, and what the estimate assumes."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from ...analysis.launch_time import LaunchEstimate


def grid_text(grid: tuple[int, ...]) -> str:
    """4096x8x1 written as 4096x8; 132x1x1 as 132."""
    sizes = list(grid)
    while len(sizes) > 1 and sizes[-1] == 1:
        sizes.pop()
    return "x".join(str(s) for s in sizes)


def launch_section(estimate: LaunchEstimate | None, note: str | None) -> Group | Text:
    """The launch's estimate (or why there is none), its limits beneath it."""
    if estimate is None:
        return Text(note or "", style="dim")
    heading = Text(
        f"the whole launch (grid {grid_text(estimate.grid)}, from {estimate.grid_from}) on the {estimate.gpu}: "
        f"{estimate.said}",
        style="bold",
    )
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column()
    for limit in estimate.limits:
        table.add_row(Text("  ↳"), Text(f"{limit.name}: {limit.us:,.1f} us: {limit.said}", style="yellow"))
    rests = [f"launch {estimate.launch_us:g} us", *estimate.assumptions]
    table.add_row(Text(""), Text("; ".join(rests), style="dim"))
    return Group(heading, table)
