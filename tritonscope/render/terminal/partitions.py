"""Warp specialization as a table: each partition's warps, register budget and Python lines."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from ...core.quantities import number_ranges

MAX_LINES = 12  # Python lines listed per partition before "..."


def partition_table(partitions) -> Table:
    table = Table(title=Text("warp specialization", style="bold"), title_justify="left")
    for column in ("partition", "warps", "registers", "Python lines it runs"):
        table.add_column(column, overflow="fold")
    for p in partitions:
        registers = "-" if p.registers is None else f"{p.registers} per thread"
        lines = number_ranges(p.python_lines, MAX_LINES)
        table.add_row(p.name, str(p.warps), registers, lines or "-")
    return table
