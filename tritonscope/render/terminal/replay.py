"""`tritonscope bench DIR/:KERNEL` and `bench FILE --launch DIR/:KERNEL`: recorded launches timed."""

from __future__ import annotations

from rich.console import Console

from ...results.bench import ReplayResult
from . import tables
from .base import TerminalRenderer, write_rows
from .bench import peak_lines
from .code import wrapped
from .tables import Column, fits, packed

COLUMNS = (
    Column("launch", right=True),
    Column("grid"),
    Column("tensors"),
    Column("ms", right=True),
    Column("GB/s", right=True),
    Column("% copy", right=True),
    Column("assembly"),
)
NOTE = "GB/s: the bytes the tensor arguments span, each counted once, over the time; a bound, not a measurement"


class ReplayView(TerminalRenderer):
    def draw(self, console: Console, result: ReplayResult) -> None:
        width, color = self.terminal.width, self.terminal.color
        peak = result.peak
        lines = peak_lines(peak, self.terminal)
        source = f"{result.kernel} of {result.file}" if result.file else result.reference
        lines += wrapped(f"{source}, with the launches recorded in {result.reference}", width, color, "1")
        rows = [_row(t, peak.copy_gbps) for t in result.launches]
        if fits(COLUMNS, rows, width):
            lines += tables.draw(COLUMNS, rows, color)
        else:
            for row in rows:
                lines += wrapped(f"launch {row[0]}: grid {row[1]}, {row[2]}", width, color, "1")
                lines += packed(list(zip((c.header for c in COLUMNS[3:]), row[3:], strict=True)), width, color)
        lines += wrapped(NOTE, width, color, "2")
        write_rows(console.file, lines)


def _row(t, copy_gbps: float) -> list[str]:
    matched = {True: "matches capture", False: "DIFFERS from capture", None: "compiled from the file"}
    return [
        str(t.number),
        "x".join(map(str, t.grid)),
        t.tensors or "-",
        f"{t.ms:.4f}",
        f"{t.gbps:,.0f}",
        f"{100 * t.gbps / copy_gbps:.0f}%",
        matched[t.assembly_matched],
    ]
