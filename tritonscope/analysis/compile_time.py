"""Where one compile's time went: every step in order, each MLIR pass joined to its row of the
pass table, so that the steps add up to the whole compile.

The times come from a compile of their own (see triton_api/timing.py), since the IR dumps of
the pass table slow every pass down; its MLIR passes are matched to the dumped ones by their
class names, in order (the two compiles run the same pipeline).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from ..core.model import Compilation
from ..core.pysource import unrolling_loops
from ..core.stages import Stage
from ..parsers.timing_report import Report
from .passes import PassRecord

_OPERATION = re.compile(r'^\s*(?:%[^=\n]*=\s*)?"?[a-z_][\w]*\.[\w.]+', re.MULTILINE)


@dataclass(frozen=True)
class TimedStep:
    stage: str  # Triton's stage it ran in (ttir, ttgir, llir, ptx, cubin); "" outside the stages
    name: str  # the pass's name as in the pass table, or the step's
    seconds: float
    # Triton's front end, an MLIR pass, an LLVM call, an external tool (ptxas), the cache writes:
    # "front end", "mlir", "llvm", "tool", "store"; "other" is what no timer measured (the stage
    # less its timed steps, and so on).
    kind: str
    index: int | None = None  # the MLIR pass's number in the pass table
    ops: tuple[int, int] | None = None  # operations in the IR before and after the pass
    lines: tuple[int, int] | None = None  # lines of the IR before and after the pass


@dataclass(frozen=True)
class CompileTiming:
    total: float  # the compile, measured around it
    stages: tuple[tuple[str, float], ...]  # (stage, seconds), in order
    steps: tuple[TimedStep, ...]
    llvm_passes: tuple[tuple[str, float], ...]  # LLVM's code-generation passes, slowest first

    @property
    def measured(self) -> float:
        """The steps' times that a timer measured (not the remainders filed as "other")."""
        return sum(s.seconds for s in self.steps if s.kind != "other")

    def slowest(self, count: int = 5) -> list[TimedStep]:
        return sorted((s for s in self.steps if s.kind != "other"), key=lambda s: -s.seconds)[:count]


def operations(ir: str) -> int:
    """Operations in MLIR text: lines that start with one (`%x = tt.load ...`, `scf.for ...`)."""
    return len(_OPERATION.findall(ir))


def build(measured, reports: list[Report], records: list[PassRecord]) -> CompileTiming:
    """The steps of one timed compile (`measured`: triton_api.timing.StepTimes; `reports`: its
    MLIR and LLVM reports), its MLIR passes joined to the pass table's `records`."""
    stage_names = [name for name, _ in measured.stages] or ["ttir", "ttgir", "llir"]
    reports = _staged(reports, stage_names)
    mlir_steps = _joined(reports, records)
    steps: list[TimedStep] = []
    if measured.front_end is not None:
        steps.append(TimedStep("", "front end (Python to TTIR)", measured.front_end, "front end"))
    for stage, seconds in measured.stages:
        steps += _stage_steps(stage, seconds, measured, reports, mlir_steps)
    if measured.store is not None:  # not on 3.5: Triton's stage times, read there, hold the writes
        steps.append(TimedStep("", "cache writes (every stage)", measured.store, "store"))
    if measured.handed_back is not None:
        steps.append(TimedStep("", "compiled kernel read back", measured.handed_back, "store"))
    rest = measured.total - sum(s.seconds for s in steps)
    steps.append(TimedStep("", "other (Python between steps)", max(rest, 0.0), "other"))
    return CompileTiming(measured.total, tuple(measured.stages), tuple(steps), _llvm_passes(reports))


def _staged(reports: list[Report], stage_names: list[str]) -> list[Report]:
    """Reports with their stage: where no mark filed them (no stage hook), the k-th MLIR report is
    taken to be the k-th stage's, and LLVM's reports the PTX stage's."""
    if all(r.stage is not None for r in reports):
        return reports
    mlir = iter(stage_names)
    staged = []
    for r in reports:
        stage = next(mlir, "") if r.kind == "mlir" else "ptx"
        staged.append(Report(r.kind, stage, r.passes, r.rest, r.total))
    return staged


def _joined(reports: list[Report], records: list[PassRecord]) -> list[TimedStep]:
    """Each timed MLIR pass as a step, with the index and IR sizes of the pass-table row it matches."""
    timed = [(r.stage or "", p) for r in reports if r.kind == "mlir" for p in r.passes]
    matcher = difflib.SequenceMatcher(a=[p.name for _, p in timed], b=[r.class_name for r in records], autojunk=False)
    match: dict[int, PassRecord] = {}
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            match[block.a + k] = records[block.b + k]
    steps = []
    counted: dict[int, int] = {}  # by id of the text: a pass's output is the next one's input

    def count(text: str) -> int:
        if id(text) not in counted:
            counted[id(text)] = operations(text)
        return counted[id(text)]

    for i, (stage, p) in enumerate(timed):
        record = match.get(i)
        if record is None:
            steps.append(TimedStep(stage, p.name, p.seconds, "mlir"))
            continue
        after = record.after if record.after is not None else record.before
        ops = (count(record.before), count(after))
        lines = (record.before.count("\n") + 1, after.count("\n") + 1)
        steps.append(TimedStep(stage, record.label, p.seconds, "mlir", record.index, ops, lines))
    return steps


def _stage_steps(stage: str, seconds: float, measured, reports: list[Report], mlir: list[TimedStep]) -> list[TimedStep]:
    # MLIR's "Rest" is left out: its timer runs for as long as the pass manager object lives, after
    # the passes too (through the LLVM steps of the llir stage), so it would count those twice.
    # The runs timed around pm.run, less their passes, are the verifier and the manager.
    steps = [s for s in mlir if s.stage == stage]
    runs = [seconds for where, seconds in measured.pass_manager_runs if where == stage]
    manager = sum(runs) - sum(s.seconds for s in steps)
    if runs and manager > 0:
        steps.append(TimedStep(stage, "MLIR verifier, pass manager", manager, "mlir"))
    steps += [TimedStep(stage, name, s, "llvm") for where, name, s in measured.steps if where == stage]
    if stage in ("cubin", "hsaco"):  # the stage is the assembler run as a child process
        tool = "ptxas" if stage == "cubin" else "assembler and linker"
        return [TimedStep(stage, tool, seconds, "tool")]
    rest = seconds - sum(s.seconds for s in steps)
    if rest > 0:
        steps.append(TimedStep(stage, f"other ({stage} set-up, Python)", rest, "other"))
    return steps


def _llvm_passes(reports: list[Report]) -> tuple[tuple[str, float], ...]:
    totals: dict[str, float] = {}
    for r in reports:
        if r.kind == "llvm":
            for p in r.passes:
                totals[p.name] = totals.get(p.name, 0.0) + p.seconds
    return tuple(sorted(totals.items(), key=lambda item: -item[1]))


GROWTH_STAGES = (Stage.TTIR, Stage.TTGIR, Stage.LLIR)


@dataclass(frozen=True)
class Unroll:
    """A loop whose body Triton copies once per iteration (`tl.static_range`, `loop_unroll_factor`)."""

    line: int
    loop: str  # its iterator as written: `tl.static_range(512)`
    copies: int | None  # of its body: the trip count (or unroll factor); None where not known

    @property
    def said(self) -> str:
        """`tl.static_range(STEPS)` at line 9 (64 copies)."""
        copies = f" ({self.copies:,} copies)" if self.copies is not None else ""
        return f"`{self.loop}` at line {self.line}{copies}"


@dataclass(frozen=True)
class LineGrowth:
    """What one Python line of the kernel became at each IR level: operations (MLIR) or instructions
    (LLVM IR) that carry its location."""

    line: int
    code: str
    counts: dict[Stage, int]  # by stage in GROWTH_STAGES
    unrolled_by: tuple[Unroll, ...] = ()  # the loops around it whose body Triton copies, outermost first

    @property
    def size(self) -> int:
        """The most operations the line has at any level: what the passes work through."""
        return max(self.counts.values(), default=0)

    @property
    def growth(self) -> float | None:
        """LLVM IR over TTIR: how much the line grows as it is lowered (a large tile, many elements
        per thread); None where it has no TTIR operation, or no LLVM IR instruction (`0.0` said it shrank)."""
        ttir, llir = self.counts.get(Stage.TTIR, 0), self.counts.get(Stage.LLIR, 0)
        return llir / ttir if ttir and llir else None


def line_growth(c: Compilation) -> tuple[LineGrowth, ...]:
    """Every line of the kernel's file that any IR level has an operation of, the largest first.
    A line is counted where an operation's location names it, inlined callers included."""
    counts: dict[int, dict[Stage, int]] = {}
    for stage in GROWTH_STAGES:
        text = c.stages.get(stage)
        if text is None:
            continue
        lines = text.splitlines()
        for number, sources in c.line_map.get(stage, {}).items():
            if stage is not Stage.LLIR and not _OPERATION.match(lines[number - 1]):
                continue  # an attribute alias, a block label: not an operation
            for line in {line for file, line in sources if file == c.kernel.file}:
                per_stage = counts.setdefault(line, {})
                per_stage[stage] = per_stage.get(stage, 0) + 1
    source = c.kernel.source.splitlines()
    grown = [
        LineGrowth(line, _code(source, line - c.kernel.first_line), n, _unrolled_by(c, line))
        for line, n in counts.items()
    ]
    return tuple(sorted(grown, key=lambda g: (-g.size, g.line)))


def _unrolled_by(c: Compilation, line: int) -> tuple[Unroll, ...]:
    loops = unrolling_loops(c.kernel.source, c.kernel.first_line, line, c.variant.constexprs)
    return tuple(Unroll(*loop) for loop in loops)


def dominant(growth: tuple[LineGrowth, ...]) -> tuple[LineGrowth, Stage, float] | None:
    """The line whose operations dominate: the most at any IR level, with that level and its share
    of the kernel-file lines' operations there."""
    if not growth or growth[0].size < 2:
        return None
    top = growth[0]
    stage = max(top.counts, key=lambda s: top.counts[s])
    total = sum(g.counts.get(stage, 0) for g in growth)
    return top, stage, top.counts[stage] / total if total else 0.0


def most_grown(growth: tuple[LineGrowth, ...]) -> LineGrowth | None:
    """The line that grows most across lowering (by LLVM IR over TTIR), among those with 2+ operations
    and at least a tenth of the largest line's: a line of 1 operation that becomes 2 is no culprit."""
    floor = max(2, growth[0].size // 10) if growth else 2
    grown = [g for g in growth if g.growth is not None and g.size >= floor]
    return max(grown, key=lambda g: (g.growth, g.size), default=None)


def _code(source: list[str], index: int) -> str:
    return source[index].strip() if 0 <= index < len(source) else ""
