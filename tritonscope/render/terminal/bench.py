"""`tritonscope bench`: time, throughput and fraction of the GPU's measured peak, beside torch."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...app.bench import Measurement, Peak
from ...core.results import BenchResult
from .base import TerminalRenderer


class BenchView(TerminalRenderer):
    def draw(self, console: Console, result: BenchResult) -> None:
        _draw(console, result.file, result.peak, list(result.results))


COLUMNS = (
    "size",
    "variant",
    "result",
    "ms",
    "GB/s",
    "% copy",
    "TFLOP/s",
    "% matmul",
    "torch ms",
    "vs torch",
    "regs",
    "spills",
    "occupancy",
)


def _draw(console: Console, file: str, peak: Peak, results: list[Measurement]) -> None:
    console.print(
        Text(
            f"measured peak: copy {peak.copy_gbps:,.0f} GB/s, fp16 matmul {peak.matmul_tflops:,.0f} "
            "TFLOP/s (torch, on this GPU)",
            style="dim",
        )
    )
    table = Table(title=f"{file} on the GPU", title_justify="left", header_style="bold")
    for column in COLUMNS:
        table.add_column(column, justify="left" if column in ("variant", "result", "occupancy") else "right")
    for r in results:
        table.add_row(*_row(r, peak))
    console.print(table)
    console.print(Text("vs torch: torch's time over the kernel's (above 1x, the kernel is faster)", style="dim"))


def _row(r: Measurement, peak: Peak) -> list:
    variant = ", ".join(f"{k}={v}" for k, v in r.label.items()) or "default"
    torch_ms = f"{r.torch_ms:.3f}" if r.torch_ms is not None else ""
    if not r.correct:
        why = r.failure or f"WRONG (error {r.error:.1e})"
        return [str(r.size), variant, Text(why, style="bold red"), *[""] * 5, torch_ms, "", "", "", ""]
    return [
        str(r.size),
        variant,
        f"ok ({r.error:.0e})",
        f"{r.ms:.3f}",
        f"{r.gbps:,.0f}",
        f"{100 * r.gbps / peak.copy_gbps:.0f}%",
        f"{r.tflops:,.1f}",
        f"{100 * r.tflops / peak.matmul_tflops:.0f}%",
        torch_ms,
        f"{r.torch_ms / r.ms:.2f}x",
        str(r.registers or ""),
        str(r.spills or 0),
        r.occupancy or "",
    ]
