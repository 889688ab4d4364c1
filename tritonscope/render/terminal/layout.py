"""`tritonscope layout`: who holds each element of a tensor, drawn as a grid."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ...analysis.layouts import Layout, Ownership
from ...core.results import LayoutResult
from .base import TerminalRenderer

_WARP_COLOURS = ("cyan", "magenta", "green", "yellow", "blue", "red", "bright_cyan", "bright_magenta")


class LayoutView(TerminalRenderer):
    def draw(self, console: Console, result: LayoutResult) -> None:
        _draw(console, result.layout, result.ownership, result.origin)


def _draw(console: Console, layout: Layout, own: Ownership, origin: str | None) -> None:
    if origin:
        console.print(Text(origin, style="dim"))
    console.print(Text(layout.text, style="bold"))
    copies = {len(owners) for owners in own.owners.values()}
    console.print(
        f"{'x'.join(map(str, own.shape))} elements over {own.warps} warps x {own.lanes} lanes x {own.registers} "
        f"registers per thread"
        + (
            f"; each element is held by {max(copies)} threads (the layout's tile is larger "
            "than the tensor, or it broadcasts)"
            if max(copies) > 1
            else ""
        )
    )
    # A 1-D tensor is drawn 32 elements to a row, each row labelled with its first index.
    rows, columns = own.shape if len(own.shape) == 2 else (max(own.shape[0] // 32, 1), min(own.shape[0], 32))
    header = Text("     ")
    for column in range(columns):
        header.append(f"{column:<3}" if column % 8 == 0 else "   ", style="dim")
    console.print(header, soft_wrap=True, crop=False)
    for row in range(rows):
        line = Text(f"{row if len(own.shape) == 2 else row * columns:>4} ", style="dim")
        for column in range(columns):
            element = (row, column) if len(own.shape) == 2 else (row * columns + column,)
            warp, lane, register = own.owners[element][0]
            line.append(f"{lane:>2} ", style=_WARP_COLOURS[warp % len(_WARP_COLOURS)])
        console.print(line, soft_wrap=True, crop=False)
    legend = Text("each cell: the lane (0-31) holding the element; its colour: the warp (")
    for warp in range(min(own.warps, 8)):
        legend.append(f"warp {warp}", style=_WARP_COLOURS[warp]).append(" " if warp < min(own.warps, 8) - 1 else "")
    legend.append(")")
    console.print(legend)
