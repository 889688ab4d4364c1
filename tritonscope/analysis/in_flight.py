"""The bytes of global loads a warp keeps in flight, read off its machine code: what bounds the
DRAM bandwidth a launch can draw by Little's law (analysis/launch_time.py).

A DRAM read takes a latency; the GPU draws its bandwidth only with (bandwidth x latency) bytes of
reads outstanding. A warp has in flight the loads it issued and has not yet waited for: their bytes
are counted in listing order, the largest set held at once. Asynchronous copies (LDGSTS) are
committed in groups (LDGDEPBAR) and waited for by `DEPBAR.LE SBk, N`: all but the N most recent
groups are then done. A pipeline of S stages issues S - 1 groups before its loop, and its loop
waits for the oldest before it issues the next: S - 1 stages in flight. A TMA copy's bytes are in its
descriptor, not its instruction: a kernel that loads through TMA has no figure here (None).
"""

from __future__ import annotations

from ..core.targets import Speeds
from . import latencies, opcodes, scoreboards
from .scoreboards import Schedule

# A DRAM read's round trip under load, in cycles: with I bytes of loads in flight on the whole GPU the DRAM
# serves at most I bytes a round trip (Little's law), below its peak where warps keep too few loads in
# flight (one warp over a long row, few blocks of skinny tiles).
DRAM_LATENCY_CYCLES = 1600
UNLOADED_LATENCY_CYCLES = 900  # the same with the DRAM all but idle: 8 blocks of vLLM's MoE GEMM on the H200 (h20a)


def read_seconds(asked: float, reads: float, held: float, speeds: Speeds) -> float:
    """The time ASKED bytes of reads take, READS of them from the DRAM, with HELD bytes in flight on the
    whole GPU: each read its round trip, the L2's at about the idle DRAM's (h20a's MoE GEMM: 52 us on the
    H200 at 8 blocks and at 132, where the L2 serves most of the 132's reads; estimated 83 and 35 when
    the DRAM's reads alone were counted, at a loaded trip), a DRAM read's rising to DRAM_LATENCY_CYCLES
    as the reads in flight draw the DRAM's whole bandwidth."""
    draw = held / (speeds.dram_bytes_per_clock * DRAM_LATENCY_CYCLES)  # the bandwidth's share at the loaded trip
    trip = UNLOADED_LATENCY_CYCLES + (DRAM_LATENCY_CYCLES - UNLOADED_LATENCY_CYCLES) * min(draw, 1.0)
    return (asked * UNLOADED_LATENCY_CYCLES + reads * (trip - UNLOADED_LATENCY_CYCLES)) / (
        held * speeds.clock_mhz * 1e6
    )


def warp_bytes(schedule: Schedule) -> float | None:
    """The most bytes of global loads one warp has issued and not yet waited for; None where a load
    goes through TMA (its size is not in the instruction) or the warp loads nothing from global memory."""
    commits = {
        offset: members
        for offset, members in scoreboards.groups(schedule.listing).items()
        if schedule.at(offset).opcode.startswith("LDGDEPBAR")
    }
    pending: dict[int, int] = {}
    committed: list[int] = []  # the copies' commits not yet waited for, in the order they were made
    most = 0
    for step, instruction in zip(schedule.instructions, schedule.listing.instructions, strict=True):
        sass = opcodes.sass(step.opcode)
        if sass.mix == opcodes.TMA:
            return None
        for wait in step.waits:  # a wait on a load's write scoreboard (not its address registers' read)
            if any(p in commits for p in wait.producers):
                counted = scoreboards.counted_wait(instruction) if wait.partial else None
                _release(committed, commits, pending, counted[1] if counted else 0)
                continue
            for producer in wait.producers:
                if wait.scoreboard == f"SB{schedule.at(producer).control.write}":
                    pending.pop(producer, None)
        if step.offset in commits:
            committed.append(step.offset)
        if sass.global_load or sass.unit is opcodes.Unit.ASYNC_COPY:
            pending[step.offset] = latencies.global_bytes(step.opcode)
        most = max(most, sum(pending.values()))
    return float(most) or None


def _release(committed: list[int], commits: dict, pending: dict[int, int], keep: int) -> None:
    """A wait on the copies' commits: all but the `keep` most recent are done, and their copies."""
    done = committed[: max(len(committed) - keep, 0)]
    for commit in done:
        for copy in commits[commit]:
            pending.pop(copy, None)
    del committed[: len(done)]
