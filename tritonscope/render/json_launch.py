"""A whole launch's time in `--json` documents (docs/json-schema.md): explain's `time.kernel_us` and
`time.launch`, and each `fit --rank` cell's `estimate`."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from ..analysis.launch_time import LaunchEstimate
from ..results.fit import Cell


def with_launch(time: dict[str, Any] | None, estimate: LaunchEstimate | None, note: str | None) -> dict | None:
    """explain's `time` object with the launch's time added: `kernel_us` and `kernel_bound` (null where
    there is none, `launch_note` saying why), and `launch`, what they are made of."""
    if time is None:
        return None
    return {
        **time,
        "kernel_us": round(estimate.kernel_us, 3) if estimate else None,
        "kernel_bound": estimate.bound if estimate else None,
        "launch": launch_body(estimate),
        "launch_note": note,
    }


def launch_body(estimate: LaunchEstimate | None) -> dict[str, Any] | None:
    if estimate is None:
        return None
    return {
        "kernel_us": round(estimate.kernel_us, 3),
        "bound": estimate.bound,
        "said": estimate.said,
        "target": estimate.target,
        "gpu": estimate.gpu,
        "grid": list(estimate.grid),
        "grid_from": estimate.grid_from,
        "programs": estimate.programs,
        "blocks_per_sm": estimate.blocks_per_sm,
        "slots": estimate.slots,
        "waves": estimate.waves,
        "tail": estimate.tail,
        "block_us": round(estimate.block_us, 3),
        "tail_us": round(estimate.tail_us, 3),
        "per_warp_bound": estimate.per_warp_bound,
        "dram_bytes": round(estimate.dram_bytes),
        "l2_bytes": round(estimate.l2_bytes),
        "flops": round(estimate.flops),
        "launch_us": estimate.launch_us,
        "limits": [{"name": limit.name, "us": round(limit.us, 3), "said": limit.said} for limit in estimate.limits],
        "assumptions": list(estimate.assumptions),
    }


def cell_body(cell: Cell) -> dict[str, Any]:
    """A fit cell: its verdict and figures, and with --rank its `estimate` (as `time.launch`) or the
    `estimate_note` saying why there is none."""
    plain = {f.name: getattr(cell, f.name) for f in fields(cell) if f.name != "estimate"}
    body = asdict(Cell(**plain))
    del body["grid_refused"]  # said in estimate_note; a --grid no cell takes is refused before any output
    return {**body, "estimate": launch_body(cell.estimate)}
