"""A whole launch's time, for a grid and the arguments' values, on a target's GPU.

The launch costs a fixed time (an empty launch's, and its first accesses' wait) plus its limits
taken together, each a time the GPU (the targets table's `Speeds`) needs at least:
  - waves: the grid runs in waves of (SMs x blocks per SM at the kernel's occupancy) programs;
    each wave takes a block's time as the per-warp model estimates it with that many blocks on each
    SM (analysis/line_time.py: latency, issue, the memory pipe, each SM's share of the DRAM), and
    the last wave (the tail) the time of its own, fewer blocks per SM. A block is the average
    program: where programs loop different numbers of times (causal attention), the per-warp time
    of program 0 is scaled by the average program's work over its work; where the walk counts
    copies of code a warp does not run (unrolled loops, remainders: analysis/walk_copies.py), by
    the share it runs;
  - blocks: an SM starts a block at most every BLOCK_CYCLES;
  - DRAM: the launch's DRAM bytes (analysis/dram_reuse.py: each tile once per wave, again only when
    the L2 let it go; a tile of narrow or unaligned rows as the sectors and lines its bytes lie in,
    analysis/dram_granule.py) at the DRAM's bandwidth;
  - L2: every program's reads and writes at the L2's bandwidth;
  - L1: those bytes as the 32-byte sectors their instructions touch (analysis/sectors.py: narrow
    or scattered accesses touch more), at the L1's bandwidth;
  - tensor cores: the matrix products' FLOPs at the SMs' dense rate (TF32 half of it, FP8 twice);
  - atomics: the L2's operations for them, at a rate set by how many addresses they share and how
    many L2 slices those lie in (analysis/atomics.py: a histogram of 256 bins waits on one slice);
  - loads in flight: the DRAM's reads at the bandwidth the resident warps' loads in flight draw by
    Little's law (analysis/in_flight.py), each a round trip.
They overlap, not perfectly: the launch takes their OVERLAP-norm, the largest lengthened by those
near it. What bounds it is the largest; within the waves, the per-warp model's own limit (latency,
issue or the tensor cores it issues to, the memory pipe, the DRAM), or `waves` itself where the
grid leaves more than a quarter of the GPU's block slots idle (a grid smaller than one wave, a
short tail). The constants below were set on the H200 (docs/data/h200-launch): its measured peaks,
and the tuning kernels of the launch set (a third held out).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from ..core import launch_grid
from ..core.model import Compilation
from ..core.stages import Stage
from ..core.targets import Speeds
from . import (
    atomics,
    dram_granule,
    in_flight,
    line_time,
    linemap,
    local_traffic,
    program_traffic,
    scoreboards,
    sectors,
    trip_counts,
    walk_copies,
)
from .dram_reuse import L1_TABLE, line_shares, memory_traffic
from .line_time import TimeEstimate

# Shares of a data sheet's peak that a kernel attains, measured on the H200 by
# benchmarks/launch_ground_truth.py (docs/data/h200-launch/launch_truth.json, `peaks`): a 4 GiB copy moves
# 4,221 GB/s of the 4,800; an 8192^3 bf16 matmul (cuBLAS) runs at 788 TFLOP/s of the 1,070 that 4,096 FLOP
# per SM per clock give at 1,980 MHz. The L2's: all of its 5,120 bytes per clock (core/targets.py).
DRAM_ATTAINED = 0.88
L2_ATTAINED = 1.0
TENSOR_ATTAINED = 0.74
L2_KEPT = 0.9  # of the L2's size, what keeps a wave's reads for a later wave
# Limits near each other add a little: the launch takes their 8-norm (_together); two equal limits take
# 1.09x either. Chosen among 2, 4, 6, 8 and 16 on the tuning kernels alone (docs/data/h200-launch).
OVERLAP = 8.0
# A launch that touches memory takes 2 us more than an empty one (do_bench's 3.5 us on the H200): its first
# loads wait out the DRAM's latency while the L2 writes back what do_bench's clearing left in it. The tuning
# kernels' smallest sizes (6 to 9 us measured) against their estimates: docs/data/h200-launch.
FIRST_ACCESS_US = 2.0
IDLE_SLOTS = 0.25  # a grid leaving more of the block slots idle than this is bound by its waves
# An SM starts a block every 158 cycles at most: on the H200, 2^21 one-warp blocks of a 16-byte-a-thread
# silu*mul took 1,266 us, 2^20 four-warp blocks 638 us (the DRAM's time for either: 371 us); the
# launch set's elementwise_wide, docs/data/h200-launch.
BLOCK_CYCLES = 158
# The L1 moves 64 bytes of 32-byte sectors a clock on each SM for global accesses: a silu*mul over 10^8+3
# bf16 elements (no 16-byte alignment: 2-byte accesses, 8 times the sectors) took 280 us for 4.8 GB of
# sectors on the H200, where its DRAM's time is 142 us (docs/data/h200-launch; analysis/sectors.py).
L1_BYTES_PER_CLOCK = 64


@dataclass(frozen=True)
class Limit:
    """One of the launch's limits: its time, and what it is made of, in words."""

    name: str  # waves, DRAM, L2, tensor cores
    us: float
    said: str


@dataclass(frozen=True)
class LaunchEstimate:
    kernel_us: float
    bound: str  # DRAM, L2, L1, tensor cores, atomics, issue, latency, memory pipe, waves, blocks
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
    launch_us: float  # the fixed cost: an empty launch's, and its first accesses' wait (FIRST_ACCESS_US)
    limits: tuple[Limit, ...]  # largest first
    per_warp_bound: str  # the per-warp model's own limit within a wave
    assumptions: tuple[str, ...] = field(default=())

    @property
    def said(self) -> str:
        """`41.2 us, bound by the DRAM: 201 MB at 4.32 TB/s`: the estimate and its bound in one line."""
        top = self.limits[0]
        what = BOUND_WORDS.get(self.bound, self.bound)
        if top.name == "waves" and self.bound not in ("waves", "blocks"):  # the per-warp model's, within them
            what = "bound by its waves, " + _WITHIN.get(self.bound, f"each block {what}")
        if self.launch_us * 2 >= self.kernel_us:  # a tiny launch: what bounds its work is not most of its time
            fixed = f"{self.launch_us:g} of them a launch's fixed cost"
            return f"{self.kernel_us:,.1f} us, {fixed}; the rest {what}: {top.said}"
        return f"{self.kernel_us:,.1f} us, {what}: {top.said}"


# A block's own limit where the waves bound the launch: its loads' waits, not the DRAM's bandwidth (the
# DRAM line below may be half the time: mamba's selective_state_update, h19a).
_WITHIN = {
    "DRAM": "each block waiting on its loads from the DRAM",
    "L2": "each block waiting on its loads from the L2",
    "issue": "each block issue-bound",
    "latency": "each block latency-bound",
}

BOUND_WORDS = {  # a bound in words: `fit --rank`'s fastest, explain's `said`
    "DRAM": "bound by the DRAM",
    "L2": "bound by the L2",
    "tensor cores": "bound by the tensor cores",
    "atomics": "bound by its atomics",
    "issue": "issue-bound",
    "latency": "latency-bound",
    "memory pipe": "bound by the memory pipe",
    "waves": "bound by its waves",
    "blocks": "bound by starting its blocks",
    "L1": "bound by the L1's sectors",
    "loads in flight": "bound by its loads in flight",
}


def estimate(
    c: Compilation,
    grid: tuple[int, ...],
    grid_from: str,
    per_warp: TimeEstimate | None = None,
    schedule: scoreboards.Schedule | None = None,
) -> LaunchEstimate | None:
    """The launch's time; None where the target has no figures, the code no SASS, or no block fits.
    `per_warp` and `schedule`: the per-warp estimate at the kernel's occupancy (made for this grid) and
    its schedule, where the caller has them already."""
    target = c.variant.target_info
    speeds = target.speeds
    blocks = c.resources.occupancy.blocks_per_sm
    if speeds is not None and blocks and schedule is None:
        schedule = scoreboards.schedule(c)
    if speeds is None or schedule is None:
        return None
    size = launch_grid.three(grid)
    programs = size[0] * size[1] * size[2]
    traffic = program_traffic.evaluate(c.stages.get(Stage.TTIR) or c.stages.get(Stage.TTGIR, ""), size, _values(c))
    slots = speeds.multiprocessors * blocks
    waves = max(1, math.ceil(programs / slots))
    tail = programs - (waves - 1) * slots
    mean_work, said = _mean_work(traffic.work)
    walks = line_time.Walks(schedule, grid=size)  # a persistent kernel's loop over its tiles counts the grid
    resident = min(blocks, math.ceil(programs / speeds.multiprocessors))  # blocks an SM holds at once
    in_bounds = line_shares(c, traffic)
    block = _block(c, walks, resident, per_warp, in_bounds)
    behind = math.ceil(tail / speeds.multiprocessors)  # the last wave's blocks on an SM: a full wave's, or fewer
    last = _block(c, walks, behind, per_warp, in_bounds) if waves > 1 and behind < resident else block
    clock = speeds.clock_mhz
    walked = walk_copies.walked_share(c, block, traffic)  # the copies of code a warp does not run
    block_us, tail_us = block.cycles * mean_work * walked / clock, last.cycles * mean_work * walked / clock
    granules = dram_granule.factors(c, traffic, slots)
    factors = {i: g.factor for i, g in granules.items()}
    memory = memory_traffic(traffic, slots, speeds.l2_bytes * L2_KEPT, factors, speeds.multiprocessors)
    local = local_traffic.launch_local(
        c, block, programs * mean_work, resident, speeds.multiprocessors, speeds.l2_bytes
    )
    dram, l2 = (memory.dram + local.dram, memory.l2 + local.l2) if local else (memory.dram, memory.l2)
    waves_us = (waves - 1) * block_us + tail_us
    limits, unknown = _limits(speeds, dram, l2, _tensor_flops(c, traffic), _actual(traffic))
    limits.append(_l1(c, block, traffic, speeds))
    limits.extend(_atomics(traffic, speeds))
    limits.extend(_parallelism(schedule, c, memory, min(programs, slots), speeds, _loads_in_bounds(traffic)))
    limits.append(Limit("waves", waves_us, _waves_said(programs, waves, blocks, tail, slots, block_us)))
    starts = programs * BLOCK_CYCLES / speeds.multiprocessors / clock
    limits.append(Limit("blocks", starts, f"{programs:,} blocks, an SM starting one each {BLOCK_CYCLES} cycles"))
    limits.sort(key=lambda limit: -limit.us)
    idle = 1 - programs / (waves * slots)
    bound = _bound(limits[0].name, block, idle)
    narrow = (*dram_granule.notes(c, traffic, granules), *_tables_said(c, traffic, speeds.l2_bytes * L2_KEPT))
    narrow += (_local_said(local),) if local else ()
    assumptions = (*traffic.notes, *said, *narrow, *_keyed_said(c, traffic), *unknown, *block.assumptions)
    fixed = speeds.launch_us + FIRST_ACCESS_US  # an empty launch's, and the first accesses' wait
    return LaunchEstimate(
        fixed + _together(limits), bound, target.name, speeds.gpu, size, grid_from, programs, blocks,
        slots, waves, tail, block_us, tail_us, dram, l2, traffic.flops, fixed,
        tuple(limits), block.bound, tuple(dict.fromkeys(assumptions)),
    )  # fmt: skip


def _tensor_flops(c: Compilation, traffic) -> float:
    """The flops the tensor cores do: none where the SASS has no matrix instruction (a dot Triton lowered
    to FMA, as Turing's fp16 dots: the walk counts those at the issue slots)."""
    mix = c.resources.instructions
    return traffic.tensor_flops if mix is None or mix.matrix else 0.0


def _actual(traffic) -> float:  # the FLOPs as they are over the FP16-rate ones (FP8's count half)
    return traffic.flops / traffic.tensor_flops if traffic.tensor_flops else 1.0


WORK_SPREAD = 8.0  # the average program taken at most this many times program 0's work, or 1/this


def _mean_work(work) -> tuple[float, tuple[str, ...]]:
    """The average program's work over program 0's (whose time the per-warp model walks), and what is said
    where that ratio is past WORK_SPREAD either way (a branch or a loop the TTIR's values do not settle)."""
    if not work.size or work[0] <= 0:
        return 1.0, ()
    ratio = float(work.mean() / work[0])
    if 1 / WORK_SPREAD <= ratio <= WORK_SPREAD:
        return ratio, ()
    kept = min(max(ratio, 1 / WORK_SPREAD), WORK_SPREAD)
    return kept, (f"the average program's work is {ratio:.3g}x program 0's: taken as {kept:g}x",)


def _keyed_said(c: Compilation, traffic: program_traffic.Traffic) -> tuple[str, ...]:
    """The assumption behind an address made from loaded values (an MoE block's expert id, a gather's
    index): programs that read their indices from different places read different data."""
    if not any(a.keyed for a in traffic.accesses):
        return ()
    found = {linemap.kernel_line(c, Stage.TTIR, a.line) for a in traffic.accesses if a.keyed}
    lines = sorted(line for line in found if line is not None)
    where = f"line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}" if lines else "the kernel"
    return (
        f"{where}: addresses from loaded values (an expert's id, a gather's index) taken to differ where the "
        "programs load them from different places; the DRAM moves less where they repeat",
    )


def _together(limits: list[Limit]) -> float:
    """The launch's time from its limits: the largest, lengthened by those near it (they do not overlap
    perfectly): their OVERLAP-norm, which is the largest where one dominates."""
    largest = max(limit.us for limit in limits)
    if largest <= 0:
        return 0.0
    return largest * sum((limit.us / largest) ** OVERLAP for limit in limits) ** (1 / OVERLAP)


def _values(c: Compilation) -> dict[str, int]:
    """The integer arguments the launch gives: the variant's, then a recorded launch's."""
    return trip_counts.known_values(c)


def _block(
    c: Compilation, walks: line_time.Walks, blocks: int, per_warp: TimeEstimate | None, in_bounds: dict[int, float]
) -> TimeEstimate:
    """The per-warp estimate with `blocks` blocks on each SM (the kernel's own occupancy: `per_warp`, made
    with no launch's masks), its DRAM bytes those the masks let through (`in_bounds`, by line)."""
    occupancy = c.resources.occupancy
    blocks = max(1, min(blocks, occupancy.blocks_per_sm))
    if per_warp is not None and blocks == occupancy.blocks_per_sm and not in_bounds:
        return per_warp
    warps = int(c.metadata.get("num_warps", 4))
    fewer = replace(occupancy, blocks_per_sm=blocks, warps_per_sm=blocks * warps)
    return walks.estimate(replace(c, resources=replace(c.resources, occupancy=fewer)), in_bounds)


def _loads_in_bounds(traffic) -> float:
    """The share of the loads' elements their masks let through: a warp whose lanes are all masked off
    keeps no load in flight."""
    loads = [a for a in traffic.accesses if a.kind == "load" and not a.block]
    total = sum(a.elements * a.width * a.all_runs for a in loads)
    return sum(a.elements * a.width * a.all_runs * a.in_bounds for a in loads) / total if total else 1.0


def _limits(speeds: Speeds, dram: float, l2: float, flops: float, actual: float = 1.0) -> tuple[list[Limit], list[str]]:
    """The DRAM's, the L2's and the tensor cores' times, and what is not known of them. `flops`: the
    tensor cores', at FP16's rate; `actual`: as they are over those (fp8's 240 GFLOP at 2x, not 120)."""
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
        said = f"{flops * actual / 1e9:,.1f} GFLOP at {rate * actual / 1e12:,.0f} TFLOP/s"
        limits.append(Limit("tensor cores", flops / rate * 1e6, said))
    elif flops:
        unknown.append(f"the tensor cores' rate of the {speeds.gpu} is not known here: not a limit")
    return limits, unknown


def _parallelism(
    schedule, c: Compilation, memory, resident: int, speeds: Speeds, in_bounds: float = 1.0
) -> list[Limit]:
    """The time the launch's DRAM reads take with the loads its resident warps keep in flight (those
    their masks let through: `in_bounds`), each byte of them a round trip (Little's law: in_flight.py's
    `read_seconds`); none where a warp's loads in flight are not known (TMA) or the launch reads nothing."""
    per_warp = in_flight.warp_bytes(schedule)
    reads = memory.dram - memory.written
    if per_warp is None or reads <= 0:
        return []
    per_warp *= in_bounds
    held = resident * int(c.metadata.get("num_warps", 4)) * per_warp
    asked = max(memory.loaded, reads)  # every read waits its round trip, those the L2 serves too
    seconds = in_flight.read_seconds(asked, reads, held, speeds)
    rate = asked / seconds / 1e12
    said = f"{_bytes(asked)} of reads, {_bytes(held)} in flight ({_bytes(per_warp)} a warp): {rate:.2f} TB/s"
    return [Limit("loads in flight", seconds * 1e6, said)]


def _l1(c: Compilation, block: TimeEstimate, traffic, speeds: Speeds) -> Limit:
    """The L1's time: every global access's bytes as the sectors its instructions touch (sectors.py); a
    gather's bytes are a sector an element already (program_traffic.py)."""
    inflation = sectors.inflation_by_line(c, block)
    moved, worst = 0.0, 1.0
    for access in traffic.accesses:
        line = linemap.kernel_line(c, Stage.TTIR, access.line) if access.known else None
        factor = inflation.get(line, 1.0) if line is not None else 1.0
        if stride := dram_granule.element_stride(access):  # its elements apart: a sector each, or their share
            factor = max(factor, min(stride, sectors.SECTOR) / access.width)
        moved, worst = moved + float(access.bytes.sum()) * factor, max(worst, factor)
    moved *= traffic.programs / max(traffic.evaluated, 1)
    rate = speeds.multiprocessors * L1_BYTES_PER_CLOCK * speeds.clock_mhz * 1e6
    wasted = f" ({worst:.0f}x the bytes used)" if worst > 1 else ""
    return Limit("L1", moved / rate * 1e6, f"{_bytes(moved)} of sectors at {rate / 1e12:.1f} TB/s{wasted}")


def _waves_said(programs: int, waves: int, blocks: int, tail: int, slots: int, block_us: float) -> str:
    """`4 waves at 1 block per SM (41.3 us a block), the last 116 of 132 blocks`; one wave: its blocks."""
    fit = f"{blocks} block{'s' if blocks != 1 else ''} per SM"
    if waves == 1:
        return f"1 wave of {programs:,} block{'s' if programs != 1 else ''} ({block_us:,.1f} us each; {fit} fit)"
    last = f", the last {tail:,} of {slots:,} blocks" if tail < slots else ""
    return f"{waves:,} waves at {fit} ({block_us:,.1f} us a block){last}"


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


def _atomics(traffic, speeds: Speeds) -> list[Limit]:
    """The atomics' time in the L2 (analysis/atomics.py), where the kernel has any."""
    found = atomics.seconds(traffic, speeds.clock_mhz * 1e6)
    return [Limit("atomics", found[0] * 1e6, found[1])] if found else []


def _tables_said(c: Compilation, traffic, capacity: float) -> tuple[str, ...]:
    """`line 17's atomics address a 1.02 KB table by data: the L2 holds it` (dram_reuse.py's tables)."""
    found = []
    for access in traffic.accesses:
        line = linemap.kernel_line(c, Stage.TTIR, access.line) if access.table else None
        if line is None:
            continue
        what = "atomics address" if access.atomic else "loads address" if access.kind == "load" else "stores address"
        if access.table <= L1_TABLE and access.kind == "load":
            where = "each SM's L1 holds it"
        elif access.table <= capacity:
            where = "the L2 holds it"
        else:
            where = f"{1 - capacity / access.table:.0%} of them miss the L2"
        found.append(f"line {line}'s {what} a {_bytes(access.table)} table by data: {where}")
    return tuple(found)


def _local_said(local: local_traffic.LocalTraffic) -> str:
    """`2.7 GB of local memory (5,832 bytes a thread, 790 MB resident): 94% of it from the DRAM`."""
    share = local.dram / local.moved
    where = f"{share:.0%} of it from the DRAM" if share >= 0.005 else "held on chip"
    per_thread = f"{local.per_thread:,} bytes a thread"
    return f"{_bytes(local.moved)} of local memory ({per_thread}, {_bytes(local.resident)} resident): {where}"


def _bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:,.3g} {unit}"
    return f"{n:,.0f} B"


TIE = 1.02  # estimates nearer than this are said as a tie (the launch set's measures move ~1% run to run)


def versus(fast: LaunchEstimate, slow: LaunchEstimate) -> str:
    """Why `slow` takes longer than `fast`, in one line: the limit that binds it, with both sides' figures,
    `1.45x: 4 waves at 1 block per SM against 2 at 2`. (The limit that grew most, binding or not, named
    a loads-in-flight time of 1.6 ms in a DRAM-bound 4.0 ms launch: h20a.)"""
    theirs = {limit.name: limit.us for limit in fast.limits}
    grown = max(slow.limits, key=lambda limit: limit.us)
    ratio = f"{slow.kernel_us / fast.kernel_us:.2f}x"
    if round(slow.kernel_us / fast.kernel_us, 2) < TIE:  # as shown: a 1.02x is never a tie (1.0199 was)
        return f"{ratio}: a tie as the model sees them (within {TIE - 1:.0%}), in an order the GPU may not keep"
    if grown.name == "DRAM":
        return f"{ratio}: {_bytes(slow.dram_bytes)} from the DRAM against {_bytes(fast.dram_bytes)}"
    if grown.name == "L2":
        return f"{ratio}: {_bytes(slow.l2_bytes)} from the L2 against {_bytes(fast.l2_bytes)}"
    if grown.name == "loads in flight":
        against = theirs.get(grown.name, 0.0)
        return f"{ratio}: its loads in flight ({grown.said}) take {grown.us:,.1f} us against {against:,.1f}"
    if grown.name == "tensor cores":
        return f"{ratio}: {slow.flops / 1e9:,.1f} GFLOP on the tensor cores against {fast.flops / 1e9:,.1f}"
    said = f"{ratio}: a block takes {slow.block_us:,.1f} us ({slow.per_warp_bound}) against {fast.block_us:,.1f}"
    programs = slow.grid[0] * slow.grid[1] * slow.grid[2]
    sms = slow.slots // max(slow.blocks_per_sm, 1)
    if slow.blocks_per_sm != fast.blocks_per_sm and programs > sms:
        # what fits per SM matters only where some SM gets two blocks: 8 blocks on 132 SMs never share one
        plural = "s" if slow.blocks_per_sm != 1 else ""
        said += f", {slow.blocks_per_sm} block{plural} fit per SM against {fast.blocks_per_sm}"
    if slow.waves == fast.waves:  # the waves alike: the block's time is the difference
        return said
    blocks = f"{slow.blocks_per_sm} block{'s' if slow.blocks_per_sm != 1 else ''} per SM"
    count = f"{slow.waves} wave{'s' if slow.waves != 1 else ''}"
    waves = f"{ratio}: {count} at {blocks} against {fast.waves} at {fast.blocks_per_sm}"
    if abs(slow.block_us - fast.block_us) > 0.1 * fast.block_us:
        though = "though " if slow.block_us < fast.block_us else ""  # the waves cost it, not its blocks
        waves += f", {though}{slow.block_us:,.1f} us a block against {fast.block_us:,.1f}"
    return waves
