"""`tritonscope layout`: who holds each element of a tensor, drawn as a grid."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console

from ...analysis.layouts import Layout, Ownership
from ...core.quantities import count, number_ranges
from ...results.layout import LayoutListResult, LayoutResult, SharedLayoutResult
from . import layout_list
from .base import Terminal, TerminalRenderer, write_rows
from .code import cells, paint, wrapped

_WARP_COLOURS = ("36", "35", "32", "33", "34", "31", "96", "95")  # cyan, magenta, green, yellow, blue, red, bright ...
CELL = 3  # columns per element: a lane number and a space


class LayoutView(TerminalRenderer):
    def draw(self, console: Console, result: LayoutResult) -> None:
        write_rows(console.file, _lines(self.terminal, result.layout, result.ownership, result.origin))


class LayoutListView(TerminalRenderer):
    def draw(self, console: Console, result: LayoutListResult) -> None:
        layout_list.draw(console, result)


class SharedLayoutView(TerminalRenderer):
    def draw(self, console: Console, result: SharedLayoutResult) -> None:
        write_rows(console.file, layout_list.bank_lines(self.terminal, result))


def _lines(terminal: Terminal, layout: Layout, own: Ownership, origin: str | None) -> list[str]:
    width, color = terminal.width, terminal.color
    lines = wrapped(origin, width, color, "2") if origin else []
    lines += wrapped(layout.text, width, color, "1")
    copies = max(len(owners) for owners in own.owners.values())
    summary = f"{'x'.join(map(str, own.shape))} elements over {count(own.warps, 'warp')} x "
    summary += f"{count(own.lanes, 'lane')} x {count(own.registers, 'register')} per thread"
    if copies > 1:
        summary += f"; each element is held by {copies} threads"
        summary += " (the layout's tile is larger than the tensor, or it broadcasts)"
    lines += wrapped(summary, width, color)
    lines += _grid(own, width, color)
    if not color:  # piped: the colours are gone, each row says its warps
        said = f"each cell: the lane (0-{own.lanes - 1}) holding the element; w: the warps of its row"
        return lines + wrapped(said + " (on a terminal, each cell's colour is its warp)", width, color)
    legend = [("", f"each cell: the lane (0-{own.lanes - 1}) holding the element; its colour: the warp (")]
    for warp in range(min(own.warps, 8)):
        legend += [(_WARP_COLOURS[warp], f"warp {warp}"), ("", " " if warp < min(own.warps, 8) - 1 else ")")]
    return (
        lines + [paint(legend, color)]
        if cells("".join(t for _, t in legend)) <= width
        else lines + wrapped("".join(t for _, t in legend), width, color)
    )


def _grid(own: Ownership, width: int, color: bool) -> list[str]:
    """The elements in rows, in bands of as many columns as fit (a power of two); a 1-D tensor is
    drawn that many elements to a row, each row labelled with its first index."""
    label = len(str(max(own.shape))) + 1
    room = 0 if color else 1 + len(f"w{max(own.warps - 2, 0)}-{own.warps - 1}")  # a row's warps, where no colour
    fit = max((width - label - room) // CELL, 1)
    band = 1 << (fit.bit_length() - 1)
    element: Callable[[int, int], tuple[int, ...]]
    if len(own.shape) == 1:
        columns = min(own.shape[0], band)
        rows, element = -(-own.shape[0] // columns), lambda r, c: (r * columns + c,)
        row_label = lambda r: r * columns  # noqa: E731
    else:
        rows, columns = own.shape
        element, row_label = (lambda r, c: (r, c)), (lambda r: r)
    lines = []
    for start in range(0, columns, band):
        stop = min(start + band, columns)
        if columns > band:
            lines.append(paint([("1", f"columns {start}-{stop - 1}:")], color))
        ticks = "".join(f"{c:>{CELL - 1}} " if c % 8 == 0 else " " * CELL for c in range(start, stop))
        lines.append(paint([("2", " " * label + ticks.rstrip())], color))
        for r in range(rows):
            cells_ = [("2", f"{row_label(r):>{label - 1}} ")]
            warps = set()
            for c in range(start, stop):
                if element(r, c) in own.owners:
                    warp, lane, _ = own.owners[element(r, c)][0]
                    warps.add(warp)
                    cells_.append((_WARP_COLOURS[warp % len(_WARP_COLOURS)], f"{lane:>{CELL - 1}} "))
            if not color and warps:
                cells_.append(("2", f"w{number_ranges(sorted(warps)).replace(', ', ',')}"))
            lines.append(paint(cells_, color))
    return lines
