"""`tritonscope grid`: the output drawn as tiles labelled by the program that writes them."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...core.model import Variant
from ...core.quantities import count
from ...results.grid import GridResult, Program, tile_of
from .base import Terminal, TerminalRenderer, write_rows
from .code import paint, wrapped

_COLOURS = ("cyan", "magenta", "green", "yellow", "blue", "red", "bright_cyan", "bright_magenta", "bright_green")


class GridView(TerminalRenderer):
    def draw(self, console: Console, result: GridResult) -> None:
        programs = list(result.programs)
        _draw(console, self.terminal, result.variant, result.size, programs, result.wave, result.wave_loads)


def _draw(
    console: Console, terminal: Terminal, variant: Variant, size, programs: list[Program], wave: int | None, counts
) -> None:
    console.print(
        Text(
            f"{variant.kernel}: {count(len(programs), 'program')} on a grid of {size}; "
            f"program numbers are the launch order (axis 0 fastest)",
            style="bold",
        )
    )
    stores = [p.stores[0] for p in programs if p.stores]
    tiles = [tile_of(access) for access in stores]
    if stores and all(tiles):
        _draw_tiles(console, programs, wave, terminal)
    else:
        _list_ranges(console, programs)
    if wave:
        per = ", ".join(f"{param}: {n}" for param, n in counts.items())
        console.print(
            f"{_first(wave)}, running at once, load {count(sum(counts.values()), 'distinct input tile')} ({per})"
        )


def _first(wave: int) -> str:
    return "the first program" if wave == 1 else f"the first {wave} programs"


_SGR = {"cyan": "36", "magenta": "35", "green": "32", "yellow": "33", "blue": "34", "red": "31"}


def _draw_tiles(console: Console, programs: list[Program], wave: int | None, terminal: Terminal) -> None:
    """The output tiles as a grid of program numbers, in bands of as many tile columns as fit."""
    placed = {}
    tiles = []
    for program in programs:
        tile = tile_of(program.stores[0])
        assert tile is not None  # _draw draws tiles only where every store has one
        tiles.append(tile)
    # placed by the whole tiles' size: a last tile cut short (2 rows of 64) is the next tile, not the 64th
    height_of, width_of = max(t[2] for t in tiles), max(t[3] for t in tiles)
    for program, (row, column, _, _) in zip(programs, tiles, strict=True):
        placed[(row // height_of, column // width_of)] = program.index
    height = max(r for r, _ in placed) + 1
    width = max(c for _, c in placed) + 1
    label = len(str(len(programs)))
    band = max(terminal.width // (label + 1), 1)
    lines = wrapped(
        "output tiles (rows of tiles down, columns across), each labelled by its program:",
        terminal.width,
        terminal.color,
    )
    for start in range(0, width, band):
        if width > band:
            lines.append(paint([("1", f"tile columns {start}-{min(start + band, width) - 1}:")], terminal.color))
        for r in range(height):
            cells = []
            for c in range(start, min(start + band, width)):
                index = placed.get((r, c))
                colour = _COLOURS[(index // wave if wave else index) % len(_COLOURS)] if index is not None else "dim"
                style = "1;" + _SGR.get(colour.removeprefix("bright_"), "2") if colour != "dim" else "2"
                cells += [("", " ") if cells else ("", ""), (style, f"{index if index is not None else '.':>{label}}")]
            lines.append(paint(cells, terminal.color))
    if wave and terminal.color:  # without colours the sentence would point at nothing
        every = "with each program" if wave == 1 else f"every {wave} programs"
        lines.append(paint([("2", f"colours change {every}: one wave")], terminal.color))
    elif wave:
        lines.append("one wave is one program" if wave == 1 else f"one wave is {wave} programs: 0-{wave - 1}, "
                     f"{wave}-{2 * wave - 1}, ... (each tile labelled by its program)")  # fmt: skip
    write_rows(console.file, lines)


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
