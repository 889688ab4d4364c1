"""One warp followed through a kernel's machine code: the cycles it spends at each instruction.

In listing order (analysis/scoreboards.py names what each wait waits for), a warp spends at
each instruction:
  - issue: the cycles since the previous instruction issued, its stall count (at least 1); under
    a DRAM-bound load, a memory instruction also waits its turn in the memory pipe's queue;
  - waits: until the results it waits on are there: a producer's latency by class
    (analysis/latencies.py; the L1 or L2 where analysis/served_by.py says a load is served
    there) less the cycles already spent since it issued. A `DEPBAR` wait holds up the
    instruction after it, where the warp sampler sees it. A `BAR.SYNC` waits for the slowest
    warp of the block: with one warp's waits since the last barrier spread +-50% uniformly
    between warps (LATENCY_SPREAD), the slowest of n waits (n - 1) / (n + 1) x 50% longer than the
    mean; a deferred-blocking barrier holds up the warp's next shared-memory access;
  - drain: after its last EXIT, until its global stores are accepted (an L2 round trip), on the
    instruction after the EXIT, where the sampler sees exiting warps.
A loop body counts its trip count times (analysis/trip_counts.py, where the arguments give it;
else `trips`, an assumption) times those of the loops around it; a producer
issued late in a loop body and waited for early in the next iteration (or, for `DEPBAR.LE ..., N`,
N iterations back) is credited the cycles between, and in a loop's steady state a wait waits for
the loop's own producers, not those of its prologue.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..parsers.sass_control import Control
from ..parsers.sass_listing import Instruction, Listing
from . import latencies, opcodes, scoreboards
from .latencies import Costs
from .opcodes import Result
from .scoreboards import Schedule

PAST_L1 = "local memory (past the L1)"  # a local-memory wait where the L2 serves the spills
# What waits in the DRAM's queue when the kernel is DRAM-bound: global memory, local memory past
# the L1, and the special registers a starting warp reads through the same memory pipe (MIO) as
# the loads of older warps (opcodes.Result).
MEMORY_QUEUE = (*(r.kind for r in Result if r.memory_queue), PAST_L1)
LATENCY_SPREAD = 0.5  # how far one warp's waits stray from the block's mean: +-50%, uniformly
SYNC_LATENCY = 20  # a barrier's own cost once every warp is there
FILL_BYTES_PER_CLOCK = 64  # an SM's L1 fill from the L2 (analysis/launch_time.py's L1_BYTES_PER_CLOCK)
SPIN_LOOP = 8  # instructions: a back edge over at most this many around a SYNCS wait is a poll, not a loop
# what a poll waits with: an mbarrier's try-wait, a sleep between tries (sm100's tensor-memory allocation
# retries UTCATOMSWS after NANOSLEEP: counted as a loop of 16 assumed trips)
_POLLS = ("SYNCS", "NANOSLEEP", "UTCATOMSWS")
BARRIER = "barrier"  # a WaitCost's scoreboard for a BAR.SYNC's wait
BLOCK_WARPS = "the block's other warps"  # what a barrier's wait waits for


@dataclass(frozen=True)
class WaitCost:
    """A wait an instruction makes, its cycles, and the instructions it waits for."""

    scoreboard: str  # SB0-SB5, gsb0, or BARRIER
    cycles: float  # per execution
    producers: tuple[int, ...]  # their offsets
    producer_lines: tuple[int, ...]  # their kernel-file lines
    kind: str  # what the producer whose result comes last is: `global load`, `shared load`, `MUFU` ...


@dataclass(frozen=True)
class InstructionTime:
    offset: int
    opcode: str
    lines: tuple[int, ...]  # the kernel-file lines its time counts for
    control: Control
    repeats: float  # executions per warp (loops: assumed trips)
    issue: float  # cycles per execution: since the previous issue (its stall count), or waiting a turn
    waits: tuple[WaitCost, ...] = ()
    drain: float = 0.0  # cycles waiting for stores after the warp's last EXIT

    @property
    def cycles(self) -> float:
        """Cycles per warp, all executions."""
        return self.repeats * (self.issue + sum(w.cycles for w in self.waits)) + self.drain

    def with_issue(self, issue: float) -> InstructionTime:
        """The same with another issue time (`replace`, made for every instruction of a walk, is slower)."""
        return InstructionTime(
            self.offset, self.opcode, self.lines, self.control, self.repeats, issue, self.waits, self.drain
        )


def loops(schedule: Schedule) -> list[tuple[int, int]]:
    """The loops (first offset, last offset): every back edge but a branch to itself (the trap
    after EXIT), a poll (_POLLS), a subroutine's return to its callers (ptxas puts its routines,
    the int64 remainder's, after the kernel's EXIT) and an out-of-line block's branch back into the
    body (an mbarrier wait's retry, after the EXIT too: it jumps back to where the wait was)."""
    edges, steps = schedule.edges, schedule.listing.instructions
    index = {s.offset: i for i, s in enumerate(steps)}
    # where the code after the kernel's last unconditional EXIT begins: out-of-line blocks
    tail = max((s.offset for s in steps if s.base == "EXIT" and not s.predicate), default=None)
    found = []
    for source, targets in edges.items():
        if steps[index[source]].base == "RET":
            continue
        for target in targets:
            if target >= source or target not in index:
                continue
            if tail is not None and target < tail < source:  # out of line, back into the body
                continue
            body = steps[index[target] : index[source] + 1]
            if len(body) <= SPIN_LOOP and any(s.base in _POLLS for s in body):
                continue
            found.append((target, source))
    return found


class _Barrier:
    """A BAR.SYNC's wait from the sync to where the warp sampler sees it: a deferred-blocking
    barrier lets the warp run on to its first shared-memory access (at most REACH instructions),
    which may be the one right after it: ncu's `barrier` samples sit on the never-executed
    `@!PT LDS RZ, [RZ]` ptxas puts after a BAR.SYNC.DEFER_BLOCKING (matmul on the H100: 17%)."""

    REACH = 16

    def __init__(self) -> None:
        self.pending: WaitCost | None = None
        self.age = 0
        self.drift = 0.0  # the warp's waits since the last barrier, all executions

    def sync(self, wait: WaitCost) -> None:
        self.pending, self.age, self.drift = wait, 0, 0.0

    def lands(self, step: Instruction) -> list[WaitCost]:
        if self.pending is None:
            return []
        self.age += 1
        if opcodes.sass(step.base).held_by_barrier or self.age > self.REACH:
            wait, self.pending = self.pending, None
            return [wait]
        return []


class Timeline:
    """The walk (module docstring). `cached`: lines whose loads the L2 serves, and why;
    `spills_past_l1`: local memory comes from the L2."""

    def __init__(
        self,
        schedule: Schedule,
        costs: Costs,
        trips: int,
        block_warps: int,
        known: dict[int, int],
        flattened: dict[int, int] | None = None,
    ):
        self.schedule, self.costs = schedule, costs
        self.loops = loops(schedule)
        # each loop's (trip count, its `for` line where the arguments gave it; None: `trips`, assumed)
        self.trips = {loop: _known(schedule, loop, known, trips) for loop in self.loops}
        self.repeats = {s.offset: 1.0 for s in schedule.listing.instructions}
        for (first, last), (count, _) in self.trips.items():
            for s in schedule.listing.instructions:
                if first <= s.offset <= last:
                    self.repeats[s.offset] *= count
        self.flattened = flattened or {}
        _once_a_tile(schedule, self.repeats, self.flattened)
        _called(schedule, self.repeats)
        self.block_warps = max(block_warps, 1)
        self.queue = 1.0  # how many times their unloaded latency memory-queue waits take (DRAM-bound)
        self.cached: dict[int, str] = {}
        self.spills_past_l1 = False
        self.issued: dict[int, float] = {}  # offset -> issue time, this pass
        self.before: dict[int, float] = {}  # the previous pass's
        self.groups = scoreboards.groups(schedule.listing)
        self.innermost = _innermost_loops(schedule.listing, self.loops)
        # a memory instruction's place in the memory pipe's queue: one entry whatever its width
        self.pipe = {
            s.offset: latencies.MIO_ENTRY if latencies.lsu_cycles(s.opcode, costs) else 0.0
            for s in schedule.instructions
        }
        self.producer_lines: dict[tuple[int, ...], tuple[int, ...]] = {}  # _lines_of's
        # what a pass asks of each instruction, found once: (it, its schedule, its executions, its
        # place in the memory pipe's queue, whether it is a barrier's sync)
        self.steps = [
            (
                step,
                scheduled,
                self.repeats[step.offset],
                self.pipe[step.offset],
                step.base == "BAR" and ".SYNC" in step.opcode,
            )
            for step, scheduled in zip(schedule.listing.instructions, schedule.instructions, strict=True)
        ]
        self.loop_of: dict[tuple[int, int], tuple[int, int] | None] = {}  # _loop_of's
        self.fills: dict[int, float] | None = None  # _fill's, by global load or commit group

    def run(self, queue: float = 1.0) -> list[InstructionTime]:
        """A pass gives the times the next one's loop-carried waits count back from: the first
        walk makes two, a later one (another `queue`) starts from the previous walk's times."""
        self.queue = queue
        if not self.issued:
            self._pass()
        self.before, self.issued = self.issued, {}
        return self._pass()

    def _pass(self) -> list[InstructionTime]:
        steps: list[InstructionTime] = []
        clock, stall = 0.0, 0  # the previous instruction's stall count (none before the first)
        held: list[WaitCost] = []  # a DEPBAR's wait: the next instruction's
        barrier = _Barrier()
        extra = self.queue - 1
        for step, scheduled, repeats, pipe, syncs in self.steps:
            issue = float(max(1, stall)) + extra * pipe
            arrive = clock + issue
            own = [self._wait(step, w, arrive) for w in scheduled.waits] if scheduled.waits else ()
            waits = held + [w for w, deferred in own if not deferred] + barrier.lands(step)
            held = [w for w, deferred in own if deferred]
            if syncs:
                barrier.sync(self._barrier(barrier.drift / repeats, scheduled.lines))
            barrier.drift += repeats * sum(w.cycles for w in waits if w.scoreboard != BARRIER)
            clock = arrive + sum(w.cycles for w in waits)
            self.issued[step.offset] = clock
            steps.append(
                InstructionTime(
                    step.offset, step.opcode, scheduled.lines, scheduled.control, repeats, issue, tuple(waits)
                )
            )
            stall = scheduled.control.stall
        return self._with_drain(steps)

    def _wait(self, step: Instruction, wait: scoreboards.Wait, arrive: float) -> tuple[WaitCost, bool]:
        """A wait's cost, and whether it holds up the next instruction (a DEPBAR) rather than this one."""
        keep = int(step.operands[1], 0) if wait.partial else 0
        ready, kind, kinds = arrive, "unknown", {}
        for producer in self._steady(wait.producers, step.offset):
            issued = self._issue_time(producer, step.offset, keep, arrive)
            if issued is None:
                continue
            latency, its_kind = self._latency(producer, wait.scoreboard)
            latency += self._fill(producer, step.offset)
            kinds[producer] = its_kind
            if issued + latency > ready or kind == "unknown":
                kind = its_kind
            ready = max(ready, issued + latency)
        # the lines said are those of the kind waited for: an I2F on the loads' scoreboard is no load (h24b)
        said = tuple(p for p in wait.producers if kinds.get(p) == kind) or wait.producers
        return WaitCost(wait.scoreboard, ready - arrive, wait.producers, self._lines_of(said), kind), (
            step.base == "DEPBAR"
        )

    def _lines_of(self, producers: tuple[int, ...]) -> tuple[int, ...]:
        """The kernel-file lines of some producers (and of the instructions they stand for), once each."""
        found = self.producer_lines.get(producers)
        if found is None:
            at = self.schedule.index
            found = tuple(
                dict.fromkeys(
                    n for p in producers for m in self._members(p) for n in self.schedule.instructions[at[m]].lines
                )
            )
            self.producer_lines[producers] = found
        return found

    def _issue_time(self, producer: int, waiter: int, keep: int, arrive: float) -> float | None:
        """When the producer issued, in the waiter's iteration's clock: this iteration's, or the
        previous pass's counted back over the loop's period (keep: a DEPBAR's N, iterations further),
        from where this pass's iteration began: the clocks of two passes part before the loop where
        an earlier loop's carried waits, or the DRAM's queue, changed between them."""
        loop = self._loop_of(producer, waiter)
        this_iteration = producer < waiter and producer in self.issued
        if loop is None:
            return self.issued[producer] if this_iteration and not self._looped_between(producer, waiter) else None
        first, last = loop
        period = self.before.get(last, 0.0) - self.before.get(first, 0.0) + 1.0
        if this_iteration:
            return self.issued[producer] - keep * period
        if producer not in self.before:
            return None
        began = self.issued.get(first, arrive)  # the waiter may be the loop's first instruction
        return began + self.before[producer] - self.before.get(first, 0.0) - (1 + keep) * period

    def _looped_between(self, producer: int, waiter: int) -> bool:
        """Whether a loop run more than once lies between a producer and its waiter: the walk counts the
        loop's body once in its clock, but the producer had all its iterations' time to land (the
        copies a pipeline's prologue issued, waited for again after the loop)."""
        return any(producer < loop[0] and loop[1] < waiter and self.trips[loop][0] > 1 for loop in self.loops)

    def _steady(self, producers: tuple[int, ...], waiter: int) -> tuple[int, ...]:
        inside = tuple(p for p in producers if self._loop_of(p, waiter) is not None)
        return inside or producers

    def _loop_of(self, a: int, b: int) -> tuple[int, int] | None:
        """The innermost loop holding both instructions (asked of each wait's producers every pass)."""
        key = (a, b)
        if key not in self.loop_of:
            self.loop_of[key] = next((loop for loop in self.innermost.get(a, ()) if loop[0] <= b <= loop[1]), None)
        return self.loop_of[key]

    def _latency(self, producer: int, board: str) -> tuple[float, str]:
        scheduled = self.schedule.instructions[self.schedule.index[producer]]
        if board != scoreboards.GROUP and f"SB{scheduled.control.write}" != board:
            return float(self.costs.register_read), "register read"
        step = self.schedule.listing.instructions[self.schedule.index[producer]]
        latency, kind = latency_of(step, self.costs, self._members(producer))
        if kind == "local memory" and self.spills_past_l1:
            return self.costs.l2 * self.queue, PAST_L1
        line = scheduled.lines[:1]
        if kind == "global load" and line and line[0] in self.cached:
            return float(self.costs.l2), f"L2 ({self.cached[line[0]]})"
        return (latency * self.queue if kind in MEMORY_QUEUE else latency), kind

    def _fill(self, producer: int, waiter: int) -> float:
        """Cycles the SM takes to fill a global load's bytes in (registers, or shared memory for a
        pipeline's commit group) at FILL_BYTES_PER_CLOCK, beyond its latency: every warp of the block
        loads its part of a tile at once, and the loads issued since the last wait on loads (a stage's
        tiles, the prologue's stages) arrive in order, this one last. No fill where a loop's load is
        waited for after the loop: the pipeline's copies for iterations past the end, predicated
        off, move nothing."""
        if self.innermost.get(producer) and self._loop_of(producer, waiter) is None:
            return 0.0
        if self.fills is None:
            self.fills = self._fills()
        return self.fills.get(producer, 0.0)

    def _fills(self) -> dict[int, float]:
        """_fill's figure for every global load and commit group, in listing order."""
        fills: dict[int, float] = {}
        behind = 0.0
        listing = self.schedule.listing.instructions
        for step, scheduled in zip(listing, self.schedule.instructions, strict=True):
            if step.base == "DEPBAR" or any(p in fills for w in scheduled.waits for p in w.producers):
                behind = 0.0
            if step.base == "LDGDEPBAR":
                members = self._members(step.offset)
                behind += sum(latencies.global_bytes(listing[self.schedule.index[m]].opcode) for m in members)
            elif opcodes.sass(step.opcode).global_load:
                behind += latencies.global_bytes(step.opcode)
            else:
                continue
            fills[step.offset] = self.block_warps * behind / FILL_BYTES_PER_CLOCK
        return fills

    def _members(self, producer: int) -> tuple[int, ...]:
        return self.groups.get(producer, (producer,))

    def _barrier(self, waited: float, lines: tuple[int, ...]) -> WaitCost:
        """The wait at a BAR.SYNC, charged where the warp sampler sees it (the instruction after it); the
        barrier's own lines (a reduction's `tl.sum`) named as what it waits at."""
        n = self.block_warps
        cycles = SYNC_LATENCY + LATENCY_SPREAD * (n - 1) / (n + 1) * waited
        return WaitCost(BARRIER, cycles, (), lines, BLOCK_WARPS)

    def _with_drain(self, steps: list[InstructionTime]) -> list[InstructionTime]:
        """The drain after the last unconditional EXIT, on the instruction after it (module docstring)."""
        listing = self.schedule.listing.instructions
        exits = [i for i, s in enumerate(listing) if s.base == "EXIT" and not s.predicate]
        if not exits or not any(opcodes.sass(s.base).drains for s in listing):
            return steps
        at = exits[-1] + 1 if exits[-1] + 1 < len(steps) and steps[exits[-1] + 1].lines else exits[-1]
        steps[at] = replace(steps[at], drain=self.costs.l2 * self.queue)
        return steps


def _known(schedule: Schedule, loop: tuple[int, int], known: dict[int, int], trips: int) -> tuple[int, int | None]:
    """(the loop's trip count, its line where the count is known from the arguments; None: assumed).
    The back edge (the branch closing the loop) is on the loop's `for` line; where it is not (Triton
    3.9 puts it on a line of the body), the one loop line with a known count among the body's."""
    line = next(iter(schedule.at(loop[1]).lines), None)
    if line is not None and line in known:
        return max(known[line], 1), line
    body = {n for s in schedule.instructions if loop[0] <= s.offset <= loop[1] for n in s.lines} & set(known)
    # a conditional back edge closes a loop of its own; an unconditional one (sm100's epilogue branches
    # back into a pipelined loop) may be another path through one, whose trips it would count again
    if len(body) == 1 and len(schedule.edges[loop[1]]) > 1:
        (line,) = body
        return max(known[line], 1), line
    return trips, None


def _once_a_tile(schedule: Schedule, repeats: dict[int, float], flattened: dict[int, int]) -> None:
    """In a flattened loop (analysis/trip_counts.py's `flattened`), the outer body's own lines run
    once every n iterations: ptxas guards them with a branch the walk does not follow."""
    for step in schedule.instructions:
        if step.lines and repeats[step.offset] > 1 and all(n in flattened for n in step.lines):
            repeats[step.offset] /= min(flattened[n] for n in step.lines)


def _called(schedule: Schedule, repeats: dict[int, float]) -> None:
    """A subroutine's body runs as often as its calls together; the walk passes it once, in its
    place after the kernel's EXIT."""
    for body, callers in schedule.subroutines:
        count = sum(repeats[offset] for offset in callers)
        for offset in body:
            repeats[offset] = count


def _innermost_loops(listing: Listing, found: list[tuple[int, int]]) -> dict[int, tuple[tuple[int, int], ...]]:
    """{offset: the loops holding it, innermost first}."""
    by_size = sorted(set(found), key=lambda loop: loop[1] - loop[0])
    return {s.offset: tuple(loop for loop in by_size if loop[0] <= s.offset <= loop[1]) for s in listing.instructions}


def latency_of(step: Instruction, costs: Costs, members: tuple[int, ...] = ()) -> tuple[float, str]:
    """(cycles until a variable-latency instruction's result is there, what it is): its opcode's
    Result (analysis/opcodes.py); one not tabled is costed as a conversion (I2F, F2I, POPC ...)."""
    result = opcodes.sass(step.base).result
    if result is None:
        return float(costs.conversion), "conversion" if step.base[:1] in "IFD" else "variable latency"
    if result is Result.WGMMA:  # a warp-group's chain: every member's turn at the tensor cores
        return len(members or (step.offset,)) * latencies.matrix_cycles(step.opcode, costs) + costs.tensor, result.kind
    if result is Result.BARRIER_WAIT and "TRANS" in step.opcode:  # a transaction count: memory arriving
        return float(costs.global_memory), result.kind
    return float(getattr(costs, result.cost)), result.kind
