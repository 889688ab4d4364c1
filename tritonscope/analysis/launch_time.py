"""A whole launch's time, for a grid and the arguments' values, on a target's GPU.

The launch costs its fixed launch time plus the largest of four times, each a limit of the GPU
(the targets table's `Speeds` for the target):
  - waves: the grid runs in waves of (SMs x blocks per SM at the kernel's occupancy) programs;
    each wave takes a block's time as the per-warp model estimates it with that many blocks on each
    SM (analysis/line_time.py: latency, issue, the memory pipe, each SM's share of the DRAM), and
    the last wave (the tail) the time of its own, fewer blocks per SM. A block is the average
    program: where programs loop different numbers of times (causal attention), the per-warp time
    of program 0 is scaled by the average program's work over its work;
  - DRAM: the launch's DRAM bytes (analysis/dram_reuse.py: each tile once per wave, again only when
    the L2 let it go) at the DRAM's bandwidth;
  - L2: every program's reads and writes at the L2's bandwidth;
  - tensor cores: the matrix products' FLOPs at the SMs' dense rate (TF32 half of it, FP8 twice).
What bounds it is the largest; within the waves, the per-warp model's own limit (latency, issue or
the tensor cores it issues to, the memory pipe, the DRAM), or `waves` itself where the grid leaves
more than a quarter of the GPU's block slots idle (a grid smaller than one wave, a short tail).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from ..core.model import Compilation
from ..core.stages import Stage
from ..core.targets import Speeds
from . import line_time, scoreboards, trip_counts
from .line_time import TimeEstimate

# Shares of a data sheet's peak that a kernel attains, measured on the H200 with
# benchmarks/launch_ground_truth.py (a copy, an L2-resident re-read, a large bf16 matmul).
DRAM_ATTAINED = 0.9
L2_ATTAINED = 0.8
TENSOR_ATTAINED = 0.8
L2_KEPT = 0.9  # of the L2's size, what keeps a wave's reads for a later wave
IDLE_SLOTS = 0.25  # a grid leaving more of the block slots idle than this is bound by its waves


@dataclass(frozen=True)
class Limit:
    """One of the launch's limits: its time, and what it is made of, in words."""

    name: str  # waves, DRAM, L2, tensor cores
    us: float
    said: str


@dataclass(frozen=True)
class LaunchEstimate:
    kernel_us: float
    bound: str  # DRAM, L2, tensor cores, issue, latency, memory pipe, waves
    target: str
    gpu: str  # the target's reference GPU, whose figures these are
    grid: tuple[int, int, int]
    grid_from: str  # where the grid came from: --grid, the capture's launch, the file's grid hook
    programs: int
    blocks_per_sm: int
    slots: int  # blocks the GPU holds at once: a full wave
    waves: int
    tail: int  # programs in the last wave (a full wave's when there is no tail)
    block_us: float  # a block's time in a full wave
    tail_us: float  # in the last wave
    dram_bytes: float
    l2_bytes: float
    flops: float
    launch_us: float
    limits: tuple[Limit, ...]  # largest first
    per_warp_bound: str  # the per-warp model's own limit within a wave
    assumptions: tuple[str, ...] = field(default=())

    @property
    def said(self) -> str:
        """`41.2 us, bound by the DRAM: 201 MB at 4.32 TB/s`: the estimate and its bound in one line."""
        top = self.limits[0]
        what = _BOUND_WORDS.get(self.bound, self.bound)
        return f"{self.kernel_us:,.1f} us, {what}: {top.said}"


_BOUND_WORDS = {
    "DRAM": "bound by the DRAM",
    "L2": "bound by the L2",
    "tensor cores": "bound by the tensor cores",
    "issue": "issue-bound",
    "latency": "latency-bound",
    "memory pipe": "bound by the memory pipe",
    "waves": "bound by its waves",
}


def estimate(
    c: Compilation,
    grid: tuple[int, ...],
    grid_from: str,
    per_warp: TimeEstimate | None = None,
    schedule: scoreboards.Schedule | None = None,
) -> LaunchEstimate | None:
    """The launch's time; None where the target has no figures, the code no SASS, or no block fits.
    `per_warp` and `schedule`: the per-warp estimate at the kernel's occupancy and its schedule, where
    the caller has them already."""
    target = c.variant.target_info
    speeds = target.speeds
    blocks = c.resources.occupancy.blocks_per_sm
    if speeds is not None and blocks and schedule is None:
        schedule = scoreboards.schedule(c)
    if speeds is None or schedule is None:
        return None
    size = (tuple(grid) + (1, 1, 1))[:3]
    programs = size[0] * size[1] * size[2]
    from . import program_traffic

    traffic = program_traffic.evaluate(c.stages.get(Stage.TTIR) or c.stages.get(Stage.TTGIR, ""), size, _values(c))
    slots = speeds.multiprocessors * blocks
    waves = max(1, math.ceil(programs / slots))
    tail = programs - (waves - 1) * slots
    work = traffic.work
    mean_work = float(work.mean() / work[0]) if work.size and work[0] > 0 else 1.0
    block = _block(c, schedule, min(blocks, math.ceil(programs / speeds.multiprocessors)), per_warp)
    last = _block(c, schedule, math.ceil(tail / speeds.multiprocessors), per_warp) if waves > 1 else block
    clock = speeds.clock_mhz
    block_us, tail_us = block.cycles * mean_work / clock, last.cycles * mean_work / clock
    from .dram_reuse import memory_traffic

    memory = memory_traffic(traffic, slots, speeds.l2_bytes * L2_KEPT)
    waves_us = (waves - 1) * block_us + tail_us
    limits, unknown = _limits(speeds, memory.dram, memory.l2, traffic.tensor_flops, waves_us)
    limits.append(Limit("waves", waves_us, _waves_said(programs, waves, blocks, tail, slots, block_us)))
    limits.sort(key=lambda limit: -limit.us)
    idle = 1 - programs / (waves * slots)
    bound = _bound(limits[0].name, block, idle)
    assumptions = (*traffic.notes, *unknown, *block.assumptions)
    return LaunchEstimate(
        speeds.launch_us + limits[0].us, bound, target.name, speeds.gpu, size, grid_from, programs, blocks,
        slots, waves, tail, block_us, tail_us, memory.dram, memory.l2, traffic.flops, speeds.launch_us,
        tuple(limits), block.bound, tuple(dict.fromkeys(assumptions)),
    )  # fmt: skip


def _values(c: Compilation) -> dict[str, int]:
    """The integer arguments the launch gives: the variant's, then a recorded launch's."""
    return trip_counts.known_values(c)


def _block(c: Compilation, schedule, blocks: int, per_warp: TimeEstimate | None) -> TimeEstimate:
    """The per-warp estimate with `blocks` blocks on each SM (the kernel's own occupancy: `per_warp`)."""
    occupancy = c.resources.occupancy
    blocks = max(1, min(blocks, occupancy.blocks_per_sm))
    if per_warp is not None and blocks == occupancy.blocks_per_sm:
        return per_warp
    warps = int(c.metadata.get("num_warps", 4))
    fewer = replace(occupancy, blocks_per_sm=blocks, warps_per_sm=blocks * warps)
    found = line_time.estimate(replace(c, resources=replace(c.resources, occupancy=fewer)), schedule)
    assert found is not None  # the schedule is there
    return found


def _limits(speeds: Speeds, dram: float, l2: float, flops: float, waves_us: float) -> tuple[list[Limit], list[str]]:
    """The DRAM's, the L2's and the tensor cores' times, and what is not known of them."""
    clock = speeds.clock_mhz * 1e6
    dram_rate = speeds.dram_bytes_per_s * DRAM_ATTAINED
    limits = [Limit("DRAM", dram / dram_rate * 1e6, f"{_bytes(dram)} at {dram_rate / 1e12:.2f} TB/s")]
    unknown = []
    if speeds.l2_bytes_per_clock is not None:
        l2_rate = speeds.l2_bytes_per_clock * clock * L2_ATTAINED
        limits.append(Limit("L2", l2 / l2_rate * 1e6, f"{_bytes(l2)} from the L2 at {l2_rate / 1e12:.1f} TB/s"))
    elif l2:
        unknown.append(f"the L2 bandwidth of the {speeds.gpu} is not published: not a limit here")
    if flops and speeds.tensor_flops_per_clock is not None:
        rate = speeds.tensor_flops_per_clock * speeds.multiprocessors * clock * TENSOR_ATTAINED
        limits.append(
            Limit("tensor cores", flops / rate * 1e6, f"{flops / 1e9:,.1f} GFLOP at {rate / 1e12:.0f} TFLOP/s")
        )
    elif flops:
        unknown.append(f"the tensor cores' rate of the {speeds.gpu} is not known here: not a limit")
    return limits, unknown


def _waves_said(programs: int, waves: int, blocks: int, tail: int, slots: int, block_us: float) -> str:
    """`4 waves at 1 block per SM (41.3 us a block), the last 116 of 132 blocks`; one wave: its blocks."""
    fit = f"{blocks} block{'s' if blocks != 1 else ''} per SM"
    if waves == 1:
        return f"1 wave of {programs:,} block{'s' if programs != 1 else ''} ({block_us:,.1f} us each; {fit} fit)"
    last = f", the last {tail:,} of {slots:,} blocks" if tail < slots else ""
    return f"{waves} waves at {fit} ({block_us:,.1f} us a block){last}"


def _bound(top: str, block: TimeEstimate, idle: float) -> str:
    """The limit named: the largest; within the waves, the per-warp model's, or the waves themselves."""
    if top != "waves":
        return top
    if idle > IDLE_SLOTS:
        return "waves"
    if block.bound == "issue" and _matrix_share(block) > 0.5:
        return "tensor cores"
    return block.bound


def _matrix_share(block: TimeEstimate) -> float:
    """The share of the issue cycles that warp-group matrix instructions hold (their turn at the tensor cores)."""
    issue = [(s.opcode.split(".")[0], s.repeats * s.issue) for s in block.instructions]
    total = sum(cycles for _, cycles in issue)
    return sum(cycles for opcode, cycles in issue if opcode.endswith("GMMA")) / total if total else 0.0


def _bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:,.3g} {unit}"
    return f"{n:,.0f} B"


def versus(fast: LaunchEstimate, slow: LaunchEstimate) -> str:
    """Why `slow` takes longer than `fast`, in one line: the limit that grew most between them,
    `1.45x: 4 waves at 1 block per SM against 2 at 2`."""
    theirs = {limit.name: limit.us for limit in fast.limits}
    grown = max(slow.limits, key=lambda limit: limit.us - theirs.get(limit.name, 0.0))
    ratio = f"{slow.kernel_us / fast.kernel_us:.2f}x"
    if grown.name == "DRAM":
        return f"{ratio}: {_bytes(slow.dram_bytes)} from the DRAM against {_bytes(fast.dram_bytes)}"
    if grown.name == "L2":
        return f"{ratio}: {_bytes(slow.l2_bytes)} from the L2 against {_bytes(fast.l2_bytes)}"
    if grown.name == "tensor cores":
        return f"{ratio}: {slow.flops / 1e9:,.1f} GFLOP on the tensor cores against {fast.flops / 1e9:,.1f}"
    said = f"{ratio}: a block takes {slow.block_us:,.1f} us ({slow.per_warp_bound}) against {fast.block_us:,.1f}"
    if (slow.waves, slow.blocks_per_sm) == (fast.waves, fast.blocks_per_sm):
        return said
    blocks = f"{slow.blocks_per_sm} block{'s' if slow.blocks_per_sm != 1 else ''} per SM"
    count = f"{slow.waves} wave{'s' if slow.waves != 1 else ''}"
    waves = f"{ratio}: {count} at {blocks} against {fast.waves} at {fast.blocks_per_sm}"
    if abs(slow.block_us - fast.block_us) > 0.1 * fast.block_us:
        waves += f", {slow.block_us:,.1f} us a block against {fast.block_us:,.1f}"
    return waves
