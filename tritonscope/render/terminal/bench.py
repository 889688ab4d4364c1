"""`tritonscope bench`: time, throughput and fraction of the GPU's measured peak, beside torch."""

from __future__ import annotations

from rich.console import Console

from ...results.bench import BenchResult, Measurement, Peak
from . import tables
from .base import Terminal, TerminalRenderer, write_rows
from .code import paint, wrapped
from .tables import Cell, Column, fits, packed, text_of


class BenchView(TerminalRenderer):
    def draw(self, console: Console, result: BenchResult) -> None:
        _draw(console, self.terminal, result.file, result.peak, list(result.results))


COLUMNS = (
    Column("size", right=True),
    Column("variant"),
    Column("result"),
    Column("ms", right=True),
    Column("GB/s", right=True),
    Column("% copy", right=True),
    Column("TFLOP/s", right=True),
    Column("% matmul", right=True),
    Column("torch ms", right=True),
    Column("vs torch", right=True),
    Column("regs", right=True),
    Column("spills", right=True),
    Column("occupancy"),
)
NOTE = "vs torch: torch's time over the kernel's (above 1x, the kernel is faster)"


def peak_lines(peak: Peak, terminal: Terminal) -> list[str]:
    """The GPU's measured peaks, said above every bench table."""
    text = f"measured peak: copy {peak.copy_gbps:,.0f} GB/s, fp16 matmul {peak.matmul_tflops:,.0f} TFLOP/s"
    return wrapped(f"{text} (torch, on this GPU)", terminal.width, terminal.color, "2")


def _draw(console: Console, terminal: Terminal, file: str, peak: Peak, results: list[Measurement]) -> None:
    lines = peak_lines(peak, terminal)
    lines.append(paint([("1", f"{file} on the GPU")], terminal.color))
    rows = [_row(r, peak) for r in results]
    if fits(COLUMNS, rows, terminal.width):
        lines += tables.draw(COLUMNS, rows, terminal.color)
    else:  # too wide: a block per result, its figures named, as many to a line as fit
        for index, row in enumerate(rows):
            style, result = _styled(row[2])
            lines += wrapped(f"[{index}] size {row[0]}, {row[1]}: {result}", terminal.width, terminal.color, style)
            figures = [(c.header, cell) for c, cell in zip(COLUMNS[3:], row[3:], strict=True) if text_of(cell)]
            lines += packed(figures, terminal.width, terminal.color)
    lines += wrapped(NOTE, terminal.width, terminal.color, "2")
    write_rows(console.file, lines)


def _styled(cell: Cell) -> tuple[str, str]:
    return ("1", cell) if isinstance(cell, str) else (cell[1], cell[0])


def _row(r: Measurement, peak: Peak) -> list[Cell]:
    variant = ", ".join(f"{k}={v}" for k, v in r.label.items()) or "default"
    torch_ms = f"{r.torch_ms:.3f}" if r.torch_ms is not None else ""
    if not r.correct:
        why = r.failure or f"WRONG (error {r.error:.1e})"
        return [f"{r.size:,}", variant, (why, "1;31"), *[""] * 5, torch_ms, "", "", "", ""]
    return [
        f"{r.size:,}",
        variant,
        f"ok ({r.error:.0e})",
        f"{r.ms:.3f}",
        f"{r.gbps:,.0f}",
        f"{100 * r.gbps / peak.copy_gbps:.0f}%",
        f"{r.tflops:,.1f}",
        f"{100 * r.tflops / peak.matmul_tflops:.0f}%",
        torch_ms,
        f"{r.torch_ms / r.ms:.2f}x" if r.torch_ms is not None else "",
        str(r.registers or ""),
        str(r.spills or 0),
        r.occupancy or "",
    ]
