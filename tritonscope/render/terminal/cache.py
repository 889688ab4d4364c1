"""`tritonscope cache list`: the compiled kernels of a cache or capture, newest first."""

from __future__ import annotations

import datetime
import shlex

from rich.console import Console

from ...core.launches import summary
from ...core.quantities import count
from ...results.cache import CacheListing
from . import tables
from .base import TerminalRenderer, write_rows
from .code import wrapped
from .tables import Column, fits, packed


def human_size(n: float) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


COLUMNS = (
    Column("kernel"),
    Column("target"),
    Column("warps", right=True),
    Column("stages", right=True),
    Column("size", right=True),
    Column("modified"),
    Column("launches"),
    Column("files"),
)


class CacheView(TerminalRenderer):
    """A table where it fits; else each kernel's name whole on its own line, its details under it.
    Files every kernel has are said once, above."""

    def draw(self, console: Console, result: CacheListing) -> None:
        width, color = self.terminal.width, self.terminal.color
        lines = wrapped(f"{count(len(result.entries), 'compiled kernel')} in {result.folder}", width, color, "1")
        rows = [_row(e, name) for e, name in zip(result.entries, result.picked_names(), strict=True)]
        columns = list(COLUMNS)
        if not any(e.launches for e in result.entries):  # a plain cache, or a capture made with --launches 0
            columns, rows = columns[:-2] + columns[-1:], [row[:-2] + row[-1:] for row in rows]
        if len({row[-1] for row in rows}) == 1:
            lines += wrapped(f"each with the files: {rows[0][-1]}", width, color, "2")
            columns, rows = columns[:-1], [row[:-1] for row in rows]
        if fits(columns, rows, width):
            lines += tables.draw(columns, rows, color)
        else:
            for row in rows:
                lines += wrapped(row[0], width, color, "1")
                lines += packed(list(zip((c.header for c in columns[1:]), row[1:], strict=True)), width, color)
        lines += _simulation_lines(result, width, color)
        if result.entries:
            lines += wrapped("show one with:", width, color, "2")
            shown = _pasted(f"{result.folder}/:{rows[0][0]}")
            lines += wrapped(f"  tritonscope dump {shown}", width, color, "2")
            launched = next((row[0] for e, row in zip(result.entries, rows, strict=True) if e.launches), None)
            if launched:
                lines += wrapped("replay a recorded launch with:", width, color, "2")
                shown = _pasted(f"{result.folder}/:{launched}")
                lines += wrapped(f"  tritonscope reproduce {shown}", width, color, "2")
        write_rows(console.file, lines)


def _pasted(word: str) -> str:
    """A command's argument as a shell takes it back: quoted, and `./` before one that starts with a
    dash (the command would read `-capdash/:k` as flags)."""
    return shlex.quote("./" + word if word.startswith("-") else word)


def _row(e, name: str) -> list[str]:
    """NAME: the entry's as `DIR/:NAME` picks it (CacheListing.picked_names)."""
    when = datetime.datetime.fromtimestamp(e.modified).strftime("%Y-%m-%d %H:%M")
    warps, stages = e.metadata.get("num_warps"), e.metadata.get("num_stages")
    row = [name, e.target, str(warps), str(stages), human_size(e.size), when, summary(e.launches) or "-"]
    return row + [" ".join(e.stages)]


def _simulation_lines(result: CacheListing, width: int, color: bool) -> list:
    """What a capture made against a simulated GPU could not take from a real run: said plainly."""
    if result.simulated is None:
        return []
    device = result.simulated
    lines = wrapped(
        f"captured against a simulated {device.get('name')} ({device.get('target')}): nothing ran, so launch "
        "grids and shapes are the program's, but no figure was measured",
        width,
        color,
        "yellow",
    )
    for record in result.autotune:
        lines += wrapped(_autotune_line(record), width, color, "2")
    if result.autotune:
        lines += wrapped(f"how chosen: {result.autotune[0].get('rule')}; a GPU run may keep another", width, color, "2")
    return lines


def _autotune_line(record: dict) -> str:
    candidates = record.get("candidates") or []
    index = record.get("chosen_index")
    which = f" (candidate {index})" if isinstance(index, int) else ""
    line = f"autotuned {record.get('kernel')} ({record.get('by')}): {count(len(candidates), 'candidate')} compiled, "
    line += f"launched {record.get('chosen')}{which}"
    if record.get("matched") is False:
        line += "; not the one the rule names (the kernel has none, or it failed), so the first was kept"
    return line
