"""`tritonscope bench`: time, throughput and fraction of the GPU's measured peak, beside torch."""

from __future__ import annotations

import json
from dataclasses import asdict

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..bench import Measurement, Peak


def render(console: Console, file: str, peak: Peak, results: list[Measurement]) -> None:
    console.print(
        Text(
            f"measured peak: copy {peak.copy_gbps:,.0f} GB/s, fp16 matmul {peak.matmul_tflops:,.0f} "
            "TFLOP/s (torch, on this GPU)",
            style="dim",
        )
    )
    table = Table(title=f"{file} on the GPU", title_justify="left", header_style="bold")
    for column in (
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
    ):
        table.add_column(column, justify="left" if column in ("variant", "result", "occupancy") else "right")
    for r in results:
        variant = ", ".join(f"{k}={v}" for k, v in r.label.items()) or "default"
        if not r.correct:
            table.add_row(
                str(r.size),
                variant,
                Text(f"WRONG (error {r.error:.1e})", style="bold red"),
                *[""] * 5,
                f"{r.torch_ms:.3f}",
                "",
                "",
                "",
                "",
            )
            continue
        table.add_row(
            str(r.size),
            variant,
            f"ok ({r.error:.0e})",
            f"{r.ms:.3f}",
            f"{r.gbps:,.0f}",
            f"{100 * r.gbps / peak.copy_gbps:.0f}%",
            f"{r.tflops:,.1f}",
            f"{100 * r.tflops / peak.matmul_tflops:.0f}%",
            f"{r.torch_ms:.3f}",
            f"{r.torch_ms / r.ms:.2f}x",
            str(r.registers or ""),
            str(r.spills or 0),
            r.occupancy or "",
        )
    console.print(table)
    console.print(Text("vs torch: torch's time over the kernel's (above 1x, the kernel is faster)", style="dim"))


def render_json(file: str, peak: Peak, results: list[Measurement]) -> str:
    return (
        json.dumps(
            {"schema": 1, "kind": "bench", "file": file, "peak": asdict(peak), "results": [asdict(r) for r in results]},
            indent=2,
        )
        + "\n"
    )
