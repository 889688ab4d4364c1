"""A launch's local memory (register spills, a stack frame): the bytes its loads and stores move,
and how far from the SM they are served.

A thread's local memory is its own, and only that thread reads it back: what the caches must
hold is the resident threads' footprint, each thread's local bytes times the threads resident at
once. The L1 holds what its share beside the blocks' shared memory holds; the rest goes to the
L2, and what the L2 does not hold to the DRAM. A thread's spills are read back after the other
resident threads' have passed through the cache: where their footprint is more than the cache
holds they are gone (a scan in an LRU cache), the share taken from none at the cache's size to
all at twice it. A row softmax of 32768 columns on one warp a row (H200) spills 5.8 KB a
thread, 790 MB resident across the GPU, against 50 MB of L2: 2.7 GB of spills to and from the DRAM,
ten times the rows' own bytes, where the per-warp walk alone said 121 us against 882 us measured.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.model import Compilation
from . import latencies, opcodes
from .line_time import TimeEstimate
from .opcodes import Unit


@dataclass(frozen=True)
class LocalTraffic:
    moved: float  # bytes the launch's local loads and stores move
    l2: float  # of them, what the L1 does not hold
    dram: float  # of those, what the L2 does not hold either
    per_thread: int  # local bytes a thread holds (spills, stack)
    resident: float  # the GPU's resident threads' local bytes at once


def launch_local(
    c: Compilation, block: TimeEstimate, programs: float, blocks_per_sm: int, multiprocessors: int, l2_bytes: float
) -> LocalTraffic | None:
    """The local memory of `programs` programs (the average's work each: `block`, the per-warp estimate
    at `blocks_per_sm`); None where the code has no local loads or stores."""
    per_warp = sum(
        s.repeats * 32 * latencies.access_bytes(s.opcode)
        for s in block.instructions
        if opcodes.sass(s.opcode).unit is Unit.LOCAL
    )
    r = c.resources
    per_thread = max(r.local_bytes, r.stack_bytes)
    if not per_warp or not per_thread:
        return None
    warps = int(c.metadata.get("num_warps", 4))
    moved = per_warp * warps * programs
    l1 = latencies.for_arch(int(c.variant.target_info.arch)).l1_and_shared_bytes - blocks_per_sm * r.shared_bytes
    resident = blocks_per_sm * warps * 32 * per_thread  # an SM's threads' local bytes
    past_l1 = _missed(resident, l1)
    past_l2 = _missed(resident * multiprocessors, l2_bytes)
    return LocalTraffic(moved, moved * past_l1, moved * past_l1 * past_l2, per_thread, resident * multiprocessors)


def _missed(footprint: float, capacity: float) -> float:
    """The share of a scan over `footprint` bytes that a cache of `capacity` bytes does not hold: in
    an LRU cache, none while the scan fits and all once it is twice the cache, in between a part."""
    capacity = max(capacity, 0.0)
    if footprint <= capacity:
        return 0.0
    return min(1.0, (footprint - capacity) / capacity) if capacity else 1.0
