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

from . import latencies, opcodes, scoreboards
from .scoreboards import Schedule


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
