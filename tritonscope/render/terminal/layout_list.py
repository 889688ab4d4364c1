"""`layout --from FILE`: the layouts a kernel uses (a table), and a shared layout drawn as banks."""

from __future__ import annotations

import re

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...results.layout import LayoutListResult, SharedLayoutResult
from .base import Terminal
from .code import paint, wrapped

CELL = 3  # columns per element: a bank number and a space
_BANK_COLOURS = ("36", "35", "32", "33", "34", "31", "96", "95")


def draw(console: Console, result: LayoutListResult) -> None:
    chooser = "written in the kernel (Gluon)" if result.language == "gluon" else "chosen by the compiler"
    count = f"{len(result.layouts)} layout{'' if len(result.layouts) == 1 else 's'}"
    console.print(Text(f"{result.kernel} on {result.target}: {count}, {chooser}", style="bold"))
    table = Table(show_edge=False, pad_edge=False)
    for column in ("alias", "kind", "Python lines", "its fields"):
        table.add_column(column, overflow="fold")
    for used in result.layouts:
        lines = ", ".join(map(str, used.python_lines[:8])) + (" ..." if len(used.python_lines) > 8 else "")
        table.add_row(used.name, used.kind, lines or "-", _fields(used.text))
    console.print(table)
    if result.accesses:
        console.print(Text("\nshared memory accesses (bank conflicts: Gluon's count per instruction)", style="bold"))
        accesses = Table(show_edge=False, pad_edge=False)
        for column in ("line", "op", "registers", "shared", "conflicts"):
            accesses.add_column(column, overflow="fold")
        for a in result.accesses:
            conflicts = "unknown" if a.conflicts is None else str(a.conflicts)
            accesses.add_row(
                ",".join(map(str, a.python_lines)) or "-",
                a.op,
                _alias(a.tensor_type),
                _alias(a.memdesc_type),
                conflicts,
            )
        console.print(accesses)
    console.print(Text("\ndraw one: --value NAME or --line N", style="dim"))


_WRAPPED = re.compile(r"^#[\w.]+<\{(.*)\}>$", re.S)


def _fields(layout: str) -> str:
    """A layout's fields, its `#ttg.blocked<{...}>` taken off (the kind column names it): its first field
    then folds at a space, not mid-word (`sizePerThrea` / `d = [1, 8]` at 80 columns: h24a)."""
    found = _WRAPPED.match(layout.strip())
    return found.group(1) if found else layout


def _alias(type_text: str) -> str:
    return type_text.split(",")[1].strip().rstrip(">") if "," in type_text else type_text


def bank_lines(terminal: Terminal, result: SharedLayoutResult) -> list[str]:
    width, color = terminal.width, terminal.color
    spelled = f"  ({result.gluon})" if result.gluon else ""
    lines = wrapped(result.origin, width, color, "2") + wrapped(f"{result.layout}{spelled}", width, color, "1")
    shape = "x".join(map(str, result.shape))
    for a in result.accesses:
        conflicts = "unknown" if a.conflicts is None else a.conflicts
        where = ",".join(map(str, a.python_lines)) or "?"
        lines += wrapped(f"line {where}: {a.op} with {_alias(a.tensor_type)}: {conflicts} bank conflicts", width, color)
    if result.banks is None:
        note = f"{shape} x {result.bits}-bit elements; banks not drawn: this layout is not one tritonscope can lay out"
        return lines + wrapped(note, width, color, "2")
    lines += wrapped(f"{shape} x {result.bits}-bit elements; each cell: the bank (0-31) holding it", width, color)
    if result.banks_from == "tritonscope":
        note = "(laid out by tritonscope from the layout's parameters: this Triton gives no shared linear layout)"
        lines += wrapped(note, width, color, "2")
    return lines + _grid(result, width, color)


def _grid(result: SharedLayoutResult, width: int, color: bool) -> list[str]:
    rank = len(result.shape)
    rows, columns = (result.shape[-2], result.shape[-1]) if rank >= 2 else (1, result.shape[-1])
    lead = (0,) * max(rank - 2, 0)  # of several buffers (leading dimensions), the first is drawn
    banks = result.banks or {}
    label = len(str(rows)) + 1
    band = 1 << (max((width - label) // CELL, 1).bit_length() - 1)
    lines = wrapped(f"the first buffer, [{', '.join(['0'] * len(lead))}, :, :]", width, color, "2") if lead else []
    for start in range(0, columns, band):
        stop = min(start + band, columns)
        if columns > band:
            lines.append(paint([("1", f"columns {start}-{stop - 1}:")], color))
        for r in range(rows):
            row = [("2", f"{r:>{label - 1}} ")]
            for c in range(start, stop):
                bank = banks.get((*lead, r, c) if rank >= 2 else (c,), 0)
                row.append((_BANK_COLOURS[bank // 4 % len(_BANK_COLOURS)], f"{bank:>{CELL - 1}} "))
            lines.append(paint(row, color))
    return lines
