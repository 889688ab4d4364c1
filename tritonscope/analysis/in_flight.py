"""The bytes of global loads a warp keeps in flight, read off its machine code: what bounds the
DRAM bandwidth a launch can draw by Little's law (analysis/launch_time.py).

A DRAM read takes a latency; the GPU draws its bandwidth only with (bandwidth x latency) bytes of
reads outstanding. A warp has in flight the loads it issued and has not yet waited for: their bytes
are counted in listing order, the largest set held at once. An asynchronous copy (LDGSTS) is waited
for at a barrier, not at its scoreboard: every copy a pipeline's prologue and loop body issue counts,
which is the stages' worth a multi-stage pipeline keeps in flight. A TMA copy's bytes are in its
descriptor, not its instruction: a kernel that loads through TMA has no figure here (None).
"""

from __future__ import annotations

from . import latencies, opcodes
from .scoreboards import Schedule


def warp_bytes(schedule: Schedule) -> float | None:
    """The most bytes of global loads one warp has issued and not yet waited for; None where a load
    goes through TMA (its size is not in the instruction) or the warp loads nothing from global memory."""
    pending: dict[int, int] = {}
    most = 0
    for step in schedule.instructions:
        sass = opcodes.sass(step.opcode)
        if sass.mix == opcodes.TMA:
            return None
        for wait in step.waits:  # a wait on a load's write scoreboard (not its address registers' read)
            for producer in wait.producers:
                if wait.scoreboard == f"SB{schedule.at(producer).control.write}":
                    pending.pop(producer, None)
        if sass.global_load or sass.unit is opcodes.Unit.ASYNC_COPY:
            pending[step.offset] = latencies.global_bytes(step.opcode)
        most = max(most, sum(pending.values()))
    return float(most) or None
