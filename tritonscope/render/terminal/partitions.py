"""Warp specialization as a table: each partition's warps, register budget and Python lines."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

MAX_LINES = 12  # Python lines listed per partition before "..."


def partition_table(partitions) -> Table:
    table = Table(title=Text("warp specialization", style="bold"), title_justify="left")
    for column in ("partition", "warps", "registers", "Python lines it runs"):
        table.add_column(column, overflow="fold")
    for p in partitions:
        registers = "-" if p.registers is None else f"{p.registers} per thread"
        lines = _ranges(p.python_lines)
        table.add_row(p.name, str(p.warps), registers, lines or "-")
    return table


def _ranges(lines: tuple[int, ...]) -> str:
    """14, 15, 16, 18 -> '14-16, 18'."""
    runs: list[list[int]] = []
    for n in lines:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    text = [f"{a}-{b}" if b > a else str(a) for a, b in runs[:MAX_LINES]]
    return ", ".join(text) + (" ..." if len(runs) > MAX_LINES else "")
