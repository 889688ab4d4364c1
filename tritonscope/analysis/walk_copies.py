"""How many times the per-warp walk counts each global access a block makes, for a block's time.

The walk (analysis/warp_timeline.py) follows the SASS in listing order and counts a loop's body its
source loop's trip count times. Where the compiler made copies of the code, it counts them all: a
loop unrolled four times holds each access four times over (and the walk still counts the body the
trip count times), its remainder after it holds more copies, and a branch's other version (a masked
and an unmasked one) is walked though a warp runs one. What a program accesses is known from the
TTIR (analysis/program_traffic.py): each global access's tile over the bytes the warps' instructions
move on its line, times the times program 0 runs it. Where the walk's global memory instructions
(their repeats) are more than that, the per-warp time is scaled down by the ratio: the copies that
do not run are memory instructions and the waits on their results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.model import Compilation
from ..core.stages import Stage
from . import opcodes
from .line_time import TimeEstimate

if TYPE_CHECKING:  # the traffic module brings NumPy: every result type that names an estimate would pay it
    from .program_traffic import Traffic

_MEMORY = (opcodes.Unit.GLOBAL, opcodes.Unit.ASYNC_COPY)


def walked_share(c: Compilation, per_warp: TimeEstimate, traffic: Traffic) -> float:
    """The share of the walk a warp runs: of its global memory instructions, the share the TTIR's
    accesses need; and where the walk repeats its deepest code more than twice as often as the TTIR's
    most repeated access runs (loops the walk counts as nested that are not: a persistent kernel's
    tile loop, a warp-specialized kernel's polls), that ratio, if smaller (module docstring)."""
    deepest = max((s.repeats for s in per_warp.instructions), default=1.0)
    runs = max((a.runs for a in traffic.accesses), default=0.0)
    nested = runs / deepest if runs and deepest > 2 * runs else 1.0
    return min(_memory_share(c, per_warp, traffic), nested)


def _memory_share(c: Compilation, per_warp: TimeEstimate, traffic: Traffic) -> float:
    """The share of the walk's global memory instructions a warp runs: 1 where the walk counts no more
    than the TTIR's accesses need."""
    walked: dict[int, float] = {}
    widths: dict[int, list[float]] = {}
    for step in per_warp.instructions:
        if opcodes.sass(step.opcode).unit not in _MEMORY or not step.lines:
            continue
        walked[step.lines[0]] = walked.get(step.lines[0], 0.0) + step.repeats
        widths.setdefault(step.lines[0], []).append(opcodes.access_bits(step.opcode) / 8)
    needed = _needed(c, traffic, widths)
    lines = [line for line in needed if line in walked]
    run = sum(needed[line] for line in lines)
    counted = sum(walked[line] for line in lines)
    return min(1.0, run / counted) if counted else 1.0


def _needed(c: Compilation, traffic: Traffic, widths: dict[int, list[float]]) -> dict[int, float]:
    """Per kernel-file line: the global memory instructions a warp of program 0 runs for its accesses."""
    stage_map = c.line_map.get(Stage.TTIR, {})
    threads = 32 * int(c.metadata.get("num_warps", 4))
    needed: dict[int, float] = {}
    for access in traffic.accesses:
        lines = [n for f, n in stage_map.get(access.line, ()) if f == c.kernel.file]
        if access.block or not lines or lines[0] not in widths:
            continue
        width = sum(widths[lines[0]]) / len(widths[lines[0]])
        per_thread = max(1.0, access.elements * access.width / threads / width)
        needed[lines[0]] = needed.get(lines[0], 0.0) + per_thread * access.runs
    return needed
