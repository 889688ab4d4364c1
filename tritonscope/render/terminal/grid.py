"""`tritonscope grid`: the output drawn as tiles labelled by the program that writes them."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...app.grid import Program, tile_of
from ...core.model import Variant
from ...core.results import GridResult
from .base import TerminalRenderer

_COLOURS = ("cyan", "magenta", "green", "yellow", "blue", "red", "bright_cyan", "bright_magenta", "bright_green")


class GridView(TerminalRenderer):
    def draw(self, console: Console, result: GridResult) -> None:
        _draw(console, result.variant, result.size, list(result.programs), result.wave, result.wave_loads)


def _draw(console: Console, variant: Variant, size, programs: list[Program], wave: int | None, counts) -> None:
    console.print(
        Text(
            f"{variant.kernel}: {len(programs)} programs on a grid of {size}; "
            f"program numbers are the launch order (axis 0 fastest)",
            style="bold",
        )
    )
    stores = [p.stores[0] for p in programs if p.stores]
    tiles = [tile_of(access) for access in stores]
    if stores and all(tiles):
        _draw_tiles(console, programs, wave)
    else:
        _list_ranges(console, programs)
    if wave:
        per = ", ".join(f"{param}: {n}" for param, n in counts.items())
        console.print(
            f"the first {wave} programs, running at once, load {sum(counts.values())} distinct input tiles ({per})"
        )


def _draw_tiles(console: Console, programs: list[Program], wave: int | None) -> None:
    placed = {}
    for program in programs:
        row, column, rows, columns = tile_of(program.stores[0])
        placed[(row // rows, column // columns)] = program.index
    height = max(r for r, _ in placed) + 1
    width = max(c for _, c in placed) + 1
    label = len(str(len(programs)))
    table = Table.grid(padding=(0, 1))
    for _ in range(width):
        table.add_column(justify="right")
    for r in range(height):
        cells = []
        for c in range(width):
            index = placed.get((r, c))
            colour = _COLOURS[(index // wave if wave else index) % len(_COLOURS)] if index is not None else "dim"
            cells.append(Text(f"{index if index is not None else '.':>{label}}", style=f"bold {colour}"))
        table.add_row(*cells)
    console.print("output tiles (rows of tiles down, columns across), each labelled by its program:")
    console.print(table)
    if wave:
        console.print(Text(f"colours change every {wave} programs: one wave", style="dim"))


def _list_ranges(console: Console, programs: list[Program]) -> None:
    table = Table(title="what each program writes", title_justify="left", header_style="bold")
    for column in ("program", "pid", "writes", "elements", ""):
        table.add_column(column)
    full = max((p.stores[0].count for p in programs if p.stores), default=0)
    shown = programs if len(programs) <= 12 else programs[:5] + programs[-5:]
    for program in shown:
        if len(programs) > 12 and program is programs[-5]:
            table.add_row("...", "", "", "", "")
        for access in program.stores[:1]:
            start, end = access.runs[0][0], access.runs[-1][1]
            tail = "masked tail" if access.count < full else ""
            table.add_row(
                str(program.index),
                str(program.pid[: 1 if program.pid[1:] == (0, 0) else 3]),
                f"{access.param}[{start}:{end}]",
                str(access.count),
                tail,
            )
    console.print(table)
