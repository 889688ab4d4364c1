"""How many bytes of 32-byte sectors the L1 handles for each byte a kernel's global accesses use.

A warp's global memory instruction moves its width (the SASS's: LDG.E.128 16 bytes a thread, .U16
2) for each thread, and touches a sector for every 32 bytes its threads' pieces fall in. Where each
thread's contiguous elements (the TTGIR layout's `sizePerThread` along its fastest dimension) are
moved by narrower instructions than they span (2-byte loads of a thread's 16 bytes, where Triton
could not prove 16-byte alignment), every instruction touches a sector per piece: 8 instructions
where one would do, each touching 16 sectors. Where a warp's threads along the fastest dimension
are few (a tile 8 columns wide), its pieces lie in sectors of their own, half used. A line's
inflation is its sectors' bytes over the bytes it uses (launch_time.py's L1 limit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.model import Compilation
from ..core.stages import Stage
from . import linemap, opcodes, ttgir
from .layouts import tensor_type
from .line_time import TimeEstimate

ACCESSES = ("tt.load", "tt.store", "ttg.async_copy_global_to_local")  # a TTGIR global access
SECTOR = 32


def inflation_by_line(c: Compilation, per_warp: TimeEstimate) -> dict[int, float]:
    """{kernel-file line: the bytes of the sectors its global accesses touch over the bytes they use},
    where above 1."""
    widths = access_bits_by_line(per_warp)
    module = ttgir.read(c.stages.get(Stage.TTGIR, ""))
    found: dict[int, float] = {}
    for op in module.ops:
        line = linemap.kernel_line(c, Stage.TTGIR, op.number) if op.name in ACCESSES else None
        if line is None or line not in widths:
            continue
        inflation = _inflation(module, op, widths[line] // 8)
        if inflation > 1:
            found[line] = max(found.get(line, 1.0), inflation)
    return found


def access_bits_by_line(per_warp: TimeEstimate) -> dict[int, int]:
    """{kernel-file line: the narrowest global access its SASS makes, in bits a thread}."""
    widths: dict[int, int] = {}
    for step in per_warp.instructions:
        if opcodes.sass(step.opcode).unit is opcodes.Unit.GLOBAL and step.lines:
            line, bits = step.lines[0], opcodes.access_bits(step.opcode)
            widths[line] = min(widths.get(line, bits), bits)
    return widths


@dataclass(frozen=True)
class Run:
    """How a global access's blocked layout lays its elements along the tensor's contiguous dimension."""

    axis: int  # that dimension: the first of the layout's `order` (Triton's analysis found it contiguous)
    piece: int  # bytes one thread holds contiguous along it (`sizePerThread`)
    threads: int  # a warp's threads side by side along it (`threadsPerWarp`)


def contiguous_run(module: ttgir.Module, op: ttgir.Op) -> Run | None:
    """A global access's Run, read off its TTGIR layout; None where that is not a blocked layout."""
    typed = tensor_type(op.text.split("->")[0])
    bits = ttgir.element_bits(op.text)
    layout = module.layout(typed[1]) if typed else None
    if typed is None or not bits or layout is None or layout.kind != "blocked":
        return None
    order, size, threads = (layout.fields.get(k) for k in ("order", "sizePerThread", "threadsPerWarp"))
    if not order or not size or not threads:
        return None
    return Run(int(order[0]), size[order[0]] * bits // 8, threads[order[0]])


def _inflation(module: ttgir.Module, op: ttgir.Op, width: int) -> float:
    """One access's sectors' bytes over its used bytes (module docstring); 1 where its layout is not read."""
    run = contiguous_run(module, op)
    if run is None:
        return 1.0
    width = max(1, min(width, run.piece))
    per_instruction = (32 // run.threads) * min(run.threads, math.ceil(run.threads * run.piece / SECTOR))
    return (run.piece / width) * per_instruction * SECTOR / (32 * run.piece)
