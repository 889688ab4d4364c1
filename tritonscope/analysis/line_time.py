"""Where a kernel's time goes, per Python line: an estimate of the cycles a warp spends on each
line's instructions, from their control codes, the scoreboard waits and the occupancy.

One warp is followed through the machine code (analysis/warp_timeline.py): the stall counts,
the waits on variable-latency results at the instruction that waits, the barrier waits and the
drain after EXIT. Then the SM's limits, with the occupancy the kernel gets (W warps per
scheduler, all running the same code):
  - issue: a scheduler issues one instruction a cycle; a MUFU, FP64 or tensor-core instruction
    holds its pipe several cycles (analysis/latencies.py);
  - memory pipe: a memory instruction holds its scheduler's share of the L1 bandwidth;
  - DRAM: the warps' global bytes at the DRAM's bandwidth per SM (loads the L2 serves left out).
At the tightest limit each warp waits its turn, the time it waits spread by the instructions' part:
a finite-source queue (_shared_cycles) gives a warp's time from the W warps' demand and the rest of
its timeline, the timeline itself for one warp, W times the demand for many, and more than either
near their crossing (2 warps, each needing the scheduler half its timeline: 1.25x; on the H200,
attention's configs of 2 warps per scheduler leave their schedulers idle 56-67% of the cycles,
docs/data/h200-2026-11-29-attention-ncu.txt). The kernel is bound by the limit where W times the
demand is more than one warp's own timeline. For the DRAM beyond the timeline the memory waits
grow instead, the walk repeated with memory
latencies `queue` times longer until the timeline takes what the DRAM needs. Where the SM's warps
then hold more global loads outstanding than it keeps (Costs.pending_loads), the excess waits at
issue: that share of each wait on a global load is charged to the loads it waits for.

The estimate is per warp, in cycles, as a share of the whole; each line keeps its evidence: its
instructions' issue cycles, the waits it makes (on which lines' instructions), its drain.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..core.model import Compilation
from . import cost, latencies, opcodes, scoreboards, served_by, trip_counts
from .latencies import Costs
from .opcodes import Result, Unit
from .scoreboards import Schedule
from .warp_timeline import BLOCK_WARPS, PAST_L1, InstructionTime, Timeline

LOADS = (*(r.kind for r in Result if r.load), PAST_L1)  # the waits said as waits on loads
LOOP_TRIPS = 16  # iterations assumed per loop level: a trip count is a run-time value


@dataclass(frozen=True)
class WaitsOn:
    """The waits one line makes on one kind of result of some lines (the scoreboard its producers set)."""

    lines: tuple[int, ...]  # the lines of the producers (a barrier's: the barrier's own lines)
    kind: str  # global load, shared load, MUFU, barrier ...
    cycles: float  # per warp, all executions
    waits: int  # instructions of the line that wait on them

    @property
    def said(self) -> str:
        """`waits on the loads of lines 21, 22 (global load)`; a barrier's: `waits for ... at the barrier of
        line 92` (a reduction's, which ptxas's next instruction, on another line, waits at)."""
        if self.kind == BLOCK_WARPS or not self.lines:
            where = f"the barrier of line{'s' if len(self.lines) > 1 else ''} {', '.join(map(str, self.lines[:4]))}"
            return f"waits for {self.kind} at {where if self.lines else 'a barrier'}"
        lines = ", ".join(map(str, self.lines[:4])) + (" ..." if len(self.lines) > 4 else "")
        loads = self.kind in LOADS or self.kind.startswith("L2")
        return (
            f"waits on {'the loads of ' if loads else ''}line{'s' if len(self.lines) > 1 else ''} {lines} ({self.kind})"
        )


@dataclass(frozen=True)
class LineTime:
    line: int
    code: str
    cycles: float  # per warp
    share: float  # of the kernel's estimated cycles
    issue: float  # of which: issuing (stall counts, a turn at the scheduler or memory pipe)
    waited: float  # of which: scoreboard and barrier waits
    drain: float  # of which: stores draining after EXIT
    instructions: int  # machine instructions on the line
    waits_on: tuple[WaitsOn, ...] = ()  # most cycles first
    # where it has a drain: the lines whose stores drain (the drain sits on the instruction after EXIT,
    # where a profiler samples exiting warps: a line of no store, an `if` in flash-attention's layer norm)
    drained: tuple[int, ...] = ()
    # a helper's call site: the lines of the helpers it calls, whose instructions it counts too (its
    # share holds theirs: the shares of a kernel that calls a helper add up past 100%)
    calls: tuple[int, ...] = ()


@dataclass(frozen=True)
class TimeEstimate:
    lines: tuple[LineTime, ...]  # by line number
    instructions: tuple[InstructionTime, ...]  # by offset
    cycles: float  # per warp: the kernel's estimated time
    bound: str  # what limits it: `latency` (one warp's own timeline), `issue`, `memory pipe`, `DRAM`
    warps_per_scheduler: float
    family: str  # the figures' source (latencies.Costs)
    layout: str  # how the control-code layout is known for this target
    assumptions: tuple[str, ...] = field(default=())

    def line(self, number: int) -> LineTime | None:
        return next((t for t in self.lines if t.line == number), None)

    @property
    def ranked(self) -> tuple[LineTime, ...]:
        """The lines, most time first."""
        return tuple(sorted(self.lines, key=lambda t: (-t.cycles, t.line)))


def estimate(
    c: Compilation, schedule: Schedule | None = None, trips: int = LOOP_TRIPS, grid: trip_counts.Grid = None
) -> TimeEstimate | None:
    """The estimate, or None where there is no SASS to read (AMD, or an nvdisasm too old); `grid`, a
    launch's where it is known (a loop over `tl.num_programs` counts it)."""
    schedule = schedule or scoreboards.schedule(c)
    return Walks(schedule, trips, grid).estimate(c) if schedule is not None else None


class Walks:
    """A kernel's walks, kept for its estimates at other occupancies (a launch's last wave): the walk
    itself does not depend on the occupancy, but for whether the spills come from past the L1."""

    def __init__(self, schedule: Schedule, trips: int = LOOP_TRIPS, grid: trip_counts.Grid = None) -> None:
        self.schedule, self.trips, self.grid = schedule, trips, grid  # grid: a launch's (its tl.num_programs)
        self.kept: dict[bool, tuple[Timeline, list[InstructionTime], dict[int, float]]] = {}

    def estimate(self, c: Compilation, in_bounds: dict[int, float] | None = None) -> TimeEstimate:
        """The estimate of `c` (this schedule's compile) at the occupancy its resources say. `in_bounds`:
        per kernel-file line, the share of its global accesses' elements their masks let through (a
        launch's, analysis/program_traffic.py): a masked-off element moves no bytes."""
        walk, steps = self._walk(c)
        occupancy = c.resources.occupancy
        warps = occupancy.warps_per_sm / 4 if occupancy.warps_per_sm else 1.0
        steps, bound = _bounded(walk, steps, warps, in_bounds or {})
        total = sum(s.cycles for s in steps)
        assumptions = _loops_said(walk, self.trips)
        if walk.costs.assumed:
            assumptions.append(f"{walk.costs.family}: the figures of {walk.costs.source}")
        return TimeEstimate(
            lines=_per_line(c, steps, total),
            instructions=tuple(steps),
            cycles=total,
            bound=bound,
            warps_per_scheduler=warps,
            family=walk.costs.family,
            layout=self.schedule.layout,
            assumptions=tuple(assumptions),
        )

    def _walk(self, c: Compilation) -> tuple[Timeline, list[InstructionTime]]:
        """The walk and its unloaded steps, made once per way the spills are served; a walk kept is
        put back to where its first run left it (the DRAM's queue walks it again)."""
        costs = _costs(c)
        spills = served_by.spills_past_l1(c, costs)
        if spills in self.kept:
            walk, steps, issued = self.kept[spills]
            walk.issued = dict(issued)
            return walk, steps
        warps = int(c.metadata.get("num_warps", 4))
        known, flattened = trip_counts.loop_trips(c, grid=self.grid), trip_counts.flattened(c, grid=self.grid)
        walk = Timeline(self.schedule, costs, self.trips, warps, known, flattened)
        walk.cached = served_by.cached_loads(c)
        walk.spills_past_l1 = spills
        steps = walk.run()
        self.kept[spills] = (walk, steps, dict(walk.issued))
        return walk, steps


def _costs(c: Compilation) -> Costs:
    """The family's figures, with the DRAM bandwidth of the target's own GPU where the targets table
    gives it (an H200 is an H100's SM with faster memory)."""
    target = c.variant.target_info
    costs = latencies.for_arch(int(target.arch))
    speeds = target.speeds
    if speeds is None:
        return costs
    return replace(costs, dram_bytes_per_cycle=round(speeds.dram_bytes_per_clock / speeds.multiprocessors, 1))


def _loops_said(walk: Timeline, trips: int) -> list[str]:
    """How many times each loop is counted: from the arguments, or assumed."""
    known = sorted({f"line {line}: {count}" for count, line in walk.trips.values() if line is not None})
    assumed = sum(1 for _, line in walk.trips.values() if line is None)
    said = [f"loop trips from the arguments ({', '.join(known)})"] if known else []
    for every in sorted(set(walk.flattened.values())):
        lines = ", ".join(str(n) for n in sorted(n for n, m in walk.flattened.items() if m == every))
        said.append(f"a flattened loop's outer lines ({lines}) once every {every} of its trips")
    if assumed:
        plural = "s" if assumed > 1 else ""
        said.append(f"{assumed} loop{plural} assumed to run {trips} times (a trip count known only at run time)")
    return said


def _issue_slots(step: InstructionTime, costs: Costs) -> float:
    """Cycles a warp's instruction holds its scheduler's issue port or pipe, by its class."""
    unit = opcodes.sass(step.opcode).unit
    if unit is Unit.SPECIAL_FUNCTION:
        return float(costs.mufu_interval)
    if unit is Unit.FP64:
        return float(costs.fp64_interval)
    if unit is Unit.WARPGROUP_MMA:
        return latencies.matrix_cycles(step.opcode, costs)
    if unit is Unit.MMA:
        return float(costs.tensor_interval)
    return 1.0


def _limits(
    walk: Timeline, steps: list[InstructionTime], warps: float, in_bounds: dict[int, float]
) -> dict[str, tuple[float, dict[int, float]]]:
    """Per limit of the SM: (cycles the W warps of a scheduler need, each instruction's part)."""
    costs = walk.costs
    issue = {s.offset: s.repeats * _issue_slots(s, costs) for s in steps}
    pipe = {s.offset: s.repeats * latencies.lsu_cycles(s.opcode, costs) for s in steps}
    on_chip = set(walk.cached)  # lines whose loads the L2 serves: no DRAM traffic
    dram = {
        s.offset: s.repeats * latencies.global_bytes(s.opcode) * (in_bounds.get(s.lines[0], 1.0) if s.lines else 1.0)
        for s in steps
        if not set(s.lines[:1]) & on_chip
    }
    return {
        "issue": (warps * sum(issue.values()), issue),
        "memory pipe": (warps * sum(pipe.values()), pipe),
        "DRAM": (4 * warps * sum(dram.values()) / costs.dram_bytes_per_cycle, dram),
    }


def _bounded(
    walk: Timeline, steps: list[InstructionTime], warps: float, in_bounds: dict[int, float]
) -> tuple[list[InstructionTime], str]:
    """The timeline under the SM's tightest limit, where that is more than the warp's own (module docstring)."""
    timeline = sum(s.cycles for s in steps)
    name, (needed, parts) = max(_limits(walk, steps, warps, in_bounds).items(), key=lambda item: item[1][0])
    if name == "DRAM" and needed > timeline:
        return _throttled(walk, _queued(walk, timeline, needed), warps), name
    # below its demand, each warp queues for its turn at the tightest limit (_shared_cycles)
    shared = _shared_cycles(warps, needed / max(warps, 1.0), timeline) if sum(parts.values()) else timeline
    if shared <= timeline:
        return steps, "latency"
    name = name if needed > timeline else "latency"
    extra, total = shared - timeline, sum(parts.values())
    # A warp-group matrix instruction runs asynchronously: a warp's turn at the tensor cores is
    # waited for where it next waits (the pipeline's copies, its barriers), not where it issues.
    asynchronous = _asynchronous(walk)
    deferred = sum(v for offset, v in parts.items() if offset in asynchronous)
    grown = [
        s.with_issue(s.issue + extra * parts.get(s.offset, 0.0) / total / s.repeats)
        if s.repeats and s.offset not in asynchronous
        else s
        for s in steps
    ]
    return _waits_grown(grown, extra * deferred / total), name


def _shared_cycles(warps: float, demand: float, timeline: float) -> float:
    """A warp's time where `warps` warps each need `demand` cycles of one resource (a scheduler's issue
    port) in a timeline of `timeline` cycles: the finite-source queue (a machine-repairman model),
    each warp away from the resource for the rest of its timeline. One warp takes its timeline; many
    take W x demand; near the crossing, each waits its turn a while: 2 warps whose demand is half
    their timeline take 1.25x it, not 1x."""
    away = max(timeline - demand, 0.0)
    if warps <= 1 or away <= 0 or demand <= 0:
        return max(timeline, warps * demand)
    low = int(warps)
    busy = _busy(low, demand / away)
    if warps > low:  # a fractional number of warps: between its neighbours
        busy += (warps - low) * (_busy(low + 1, demand / away) - busy)
    return warps * demand / busy


def _busy(warps: int, ratio: float) -> float:
    """The resource's busy share with `warps` sources, each asking `ratio` of service per time away."""
    term, total = 1.0, 1.0
    for k in range(1, warps + 1):
        term *= (warps - k + 1) * ratio
        total += term
    return 1 - 1 / total


def _asynchronous(walk: Timeline) -> set[int]:
    """The offsets of the warp-group matrix instructions."""
    return {s.offset for s in walk.schedule.instructions if opcodes.sass(s.opcode).unit is Unit.WARPGROUP_MMA}


def _throttled(walk: Timeline, steps: list[InstructionTime], warps: float) -> list[InstructionTime]:
    """Part of the waits on global loads moved to the loads' issue: 1 - pending_loads / (the SM's
    warps x the loads one warp has outstanding at most), where that is above zero."""
    outstanding = 4 * warps * _most_outstanding_loads(walk.schedule)
    share = 1 - walk.costs.pending_loads / outstanding if outstanding else 0.0
    if share <= 0:
        return steps
    loads = {s.offset for s in steps if opcodes.sass(s.opcode).global_load}
    moved: dict[int, float] = {}
    kept = []
    for step in steps:
        waits = []
        for wait in step.waits:
            producers = [p for p in wait.producers if p in loads] if wait.kind == "global load" else []
            for producer in producers:
                moved[producer] = moved.get(producer, 0.0) + step.repeats * share * wait.cycles / len(producers)
            waits.append(replace(wait, cycles=wait.cycles * (1 - share)) if producers else wait)
        kept.append(replace(step, waits=tuple(waits)) if waits != list(step.waits) else step)
    return [replace(s, issue=s.issue + moved[s.offset] / s.repeats) if s.offset in moved else s for s in kept]


def _most_outstanding_loads(schedule: Schedule) -> int:
    """The most global loads one warp has issued and not yet waited for, in listing order."""
    pending: set[int] = set()
    most = 0
    for step in schedule.instructions:
        for wait in step.waits:  # a wait on a load's write scoreboard (not its address registers' read)
            pending -= {p for p in wait.producers if wait.scoreboard == f"SB{schedule.at(p).control.write}"}
        if opcodes.sass(step.opcode).global_load:
            pending.add(step.offset)
        most = max(most, len(pending))
    return most


def _waits_grown(steps: list[InstructionTime], extra: float) -> list[InstructionTime]:
    """Each wait made longer in proportion to its cycles, `extra` cycles in all."""
    waited = sum(s.repeats * sum(w.cycles for w in s.waits) for s in steps)
    if extra <= 0 or not waited:
        return steps
    scale = 1 + extra / waited
    return [replace(s, waits=tuple(replace(w, cycles=w.cycles * scale) for w in s.waits)) for s in steps]


def _queued(walk: Timeline, unloaded: float, needed: float) -> list[InstructionTime]:
    """The walk again with memory-queue latencies `queue` times longer, `queue` found by the secant
    method so that the timeline takes the DRAM's `needed` cycles (within 2%, six walks at most)."""
    low, low_time, high = 1.0, unloaded, 2.0
    steps = walk.run(high)
    high_time = sum(s.cycles for s in steps)
    for _ in range(6):
        if abs(high_time - needed) < 0.02 * needed or high_time == low_time:
            break
        guess = high + (needed - high_time) * (high - low) / (high_time - low_time)
        low, low_time, high = high, high_time, max(guess, 1.0)
        steps = walk.run(high)
        high_time = sum(s.cycles for s in steps)
    return steps


def _per_line(c: Compilation, steps: list[InstructionTime], total: float) -> tuple[LineTime, ...]:
    """Each line's time: every instruction counts for each of its lines (an inlined helper's line and its
    call site, which says so: `calls`)."""
    texts = cost.source_texts(c)
    sums: dict[int, list[float]] = {}  # line -> [issue, waited, drain, instructions]
    waits: dict[int, dict[tuple[tuple[int, ...], str], list[float]]] = {}
    calls: dict[int, set[int]] = {}
    for step in steps:
        for outer in step.lines[1:]:
            calls.setdefault(outer, set()).add(step.lines[0])
        for line in step.lines:
            entry = sums.setdefault(line, [0.0, 0.0, 0.0, 0])
            entry[0] += step.repeats * step.issue
            entry[1] += step.repeats * sum(w.cycles for w in step.waits)
            entry[2] += step.drain
            entry[3] += 1
            for wait in step.waits:
                lines = wait.producer_lines  # a barrier's: its own lines
                found = waits.setdefault(line, {}).setdefault((lines, wait.kind), [0.0, 0])
                found[0] += step.repeats * wait.cycles
                found[1] += 1
    stores = tuple(dict.fromkeys(n for s in steps if opcodes.sass(s.opcode).drains for n in s.lines[:1]))
    result = []
    for line in sorted(sums):
        issue, waited, drain, count = sums[line]
        cycles = issue + waited + drain
        on = [WaitsOn(lines, kind, v, int(n)) for (lines, kind), (v, n) in waits.get(line, {}).items() if v >= 0.5]
        on.sort(key=lambda w: -w.cycles)
        share = cycles / total if total else 0.0
        drained = stores if drain else ()
        code = texts.get(line, "").strip()
        called = tuple(sorted(calls.get(line, set()) - {line}))
        result.append(LineTime(line, code, cycles, share, issue, waited, drain, int(count), tuple(on), drained, called))
    return tuple(result)
