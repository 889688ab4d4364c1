"""Where a compile's time went (`passes --time`): every step in order under its stage, with its
wall time, its share, and the IR's size before and after; the slowest marked."""

from __future__ import annotations

from ...analysis.compile_time import GROWTH_STAGES, CompileTiming, LineGrowth, TimedStep, dominant, most_grown
from ...core.model import Compilation
from ...core.quantities import number_ranges
from ...core.stages import Stage
from . import tables
from .base import Terminal
from .code import wrapped
from .tables import Cell, Column

TIME_NOTE = (
    "ms: wall time, from MLIR's and LLVM's own timers and timers around each step, in a compile "
    "of its own without IR dumps; ops, lines: the IR before→after the pass; ◀ the slowest steps"
)


def timing_table(timing: CompileTiming, only_changed: set[int] | None, terminal: Terminal) -> list[str]:
    """Every step of the compile in order under its stage, with its time, share and the IR's size;
    the slowest marked. `only_changed`: the pass indexes to keep (--changed); other steps stay.
    The lines column goes first where the terminal is too narrow for every name whole."""
    slowest = {id(s) for s in timing.slowest()}
    steps = [s for s in timing.steps if only_changed is None or s.index is None or s.index in only_changed]
    columns = [Column("#", right=True), Column("step"), Column("ms", right=True), Column("%", right=True)]
    columns += [Column("ops", right=True), Column("lines", right=True), Column("")]
    rows = [_timed_row(s, timing.total, id(s) in slowest) for s in steps]
    note = []
    if not tables.fits(columns, rows, terminal.width):
        columns, rows = columns[:5] + columns[6:], [row[:5] + row[6:] for row in rows]
        note = wrapped("(the IR's lines before→after each pass: --json, or a wider terminal)", *_shape(terminal), "2")
    styles = ["1;33" if id(s) in slowest else "2" if s.kind == "other" or not s.seconds else "" for s in steps]
    head, body = tables.drawn(columns, rows, terminal.color, row_styles=styles, fold=(1, terminal.width))
    stage_ms = dict(timing.stages)
    return note + head + tables.headed(steps, body, lambda s: _stage_heading(s.stage, stage_ms), terminal.color)


def _shape(terminal: Terminal) -> tuple[int, bool]:
    return terminal.width, terminal.color


def _timed_row(step: TimedStep, total: float, slow: bool) -> list[Cell]:
    share = f"{100 * step.seconds / total:.1f}%" if total else ""
    cells: list[Cell] = [str(step.index or ""), step.name, _ms(step.seconds), share, _sizes(step.ops)]
    return cells + [_sizes(step.lines), "◀" if slow else ""]


def _stage_heading(stage: str, stage_seconds: dict[str, float]) -> str:
    if not stage:
        return "outside the stages:"
    seconds = stage_seconds.get(stage)
    return f"{stage} stage, {_ms(seconds)} ms:" if seconds is not None else f"{stage} stage:"


def _ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:.0f}" if ms >= 1000 else f"{ms:.1f}"


def _sizes(pair: tuple[int, int] | None) -> str:
    if pair is None:
        return ""
    return f"{pair[0]}→{pair[1]}" if pair[0] != pair[1] else str(pair[1])


def timing_lines(timing: CompileTiming, only_changed: set[int] | None, terminal: Terminal) -> list[str]:
    """The heading (the compile's time, and how much of it the steps account for), the table, and
    LLVM code generation's slowest passes."""
    share = 100 * timing.measured / timing.total if timing.total else 0.0
    heading = f"compiled in {_ms(timing.total)} ms; timed steps add up to {_ms(timing.measured)} ms ({share:.0f}%)"
    lines = wrapped(heading, terminal.width, terminal.color, "1")
    lines += timing_table(timing, only_changed, terminal)
    if timing.llvm_passes:
        top = ", ".join(f"{name} {_ms(seconds)} ms" for name, seconds in timing.llvm_passes[:3])
        lines += wrapped(f"LLVM code generation's slowest passes: {top}", terminal.width, terminal.color, "36")
    untimed = _untimed(timing)
    if untimed:
        lines += wrapped(
            f"passes {untimed}: not timed apart (a pass run inside another, as the inliner runs "
            "canonicalize, is timed within that one, or on an unnumbered row under its class name)",
            terminal.width,
            terminal.color,
            "2",
        )
    return lines + wrapped(TIME_NOTE, terminal.width, terminal.color, "2")


def _untimed(timing: CompileTiming) -> str:
    """The pass numbers the table skips, as ranges (`2-4, 38`); empty where none is."""
    shown = {s.index for s in timing.steps if s.index is not None}
    return number_ranges(n for n in range(1, max(shown, default=0) + 1) if n not in shown)


def stage_time_lines(compilations: list, labels: list[str], terminal: Terminal) -> list[str]:
    """`diff`: each variant's compile time per stage (Triton's own timers), a column per variant, and
    each variant's total against the first's: how compile time grows along a --vary axis."""
    shape = _shape(terminal)
    pairs = [(label, c) for label, c in zip(labels, compilations, strict=True) if c is not None]
    timed = [(label, c) for label, c in pairs if c.stage_seconds]
    untimed = [label for label, c in pairs if not c.stage_seconds]
    note = (
        wrapped(
            f"compile time of {', '.join(untimed)}: not known (read from Triton's cache; "
            "TRITON_ALWAYS_COMPILE=1 compiles again)",
            *shape,
            "2",
        )
        if untimed
        else []
    )
    if not timed:
        return note
    totals = [sum(s for _, s in c.stage_seconds) for _, c in timed]
    columns = [Column("ms")] + [Column(label, right=True) for label, _ in timed]
    stages = list(dict.fromkeys(name for _, c in timed for name, _ in c.stage_seconds))
    rows: list[list[Cell]] = [[stage] + [_stage_ms(c, stage) for _, c in timed] for stage in stages]
    rows.append(["total", *(_ms(t) for t in totals)])
    rows.append([f"× {timed[0][0]}", *(f"{t / totals[0]:.2f}x" if totals[0] else "" for t in totals)])
    if not tables.fits(columns, rows, terminal.width):
        pieces = (f"{label} {_ms(t)} ms" for (label, _), t in zip(timed, totals, strict=True))
        return wrapped("compile time: " + "; ".join(pieces), *shape) + note
    title = wrapped("compile time per stage (Triton's timers; passes --time splits a stage by pass)", *shape, "1")
    styles = [""] * (len(rows) - 2) + ["1", "1;33"]
    return title + tables.draw(columns, rows, terminal.color, row_styles=styles) + note


def _stage_ms(c: Compilation, stage: str) -> str:
    seconds = dict(c.stage_seconds).get(stage)
    return _ms(seconds) if seconds is not None else ""


GROWTH_ROWS = 12  # lines shown by explain --compile-time, the largest first
GROWTH_NOTE = (
    "ops: the operations (LLVM IR: instructions) that carry the line's location at each level; "
    "x: LLVM IR over TTIR. passes --time names the pass that took the time."
)


def compile_time_lines(c: Compilation, growth: tuple[LineGrowth, ...], terminal: Terminal) -> list[str]:
    """explain --compile-time: the stage that took the time, then the Python lines with the most
    operations at TTIR, TTGIR and LLVM IR, and the line that grows most as it is lowered."""
    shape = (terminal.width, terminal.color)
    lines = wrapped(_slowest_stage(c.stage_seconds), *shape, "1")  # each stage's time: in the header
    top = dominant(growth)
    if top is not None:
        lines += wrapped(_dominant_text(*top), *shape, "1;33")
    grown = most_grown(growth)
    if grown is not None and (top is None or grown.line != top[0].line):
        counts = " → ".join(f"{n} {s.value.upper()}" for s, n in grown.counts.items())
        lines += wrapped(f"grows most as it is lowered: line {grown.line} ({counts})", *shape, "1")
    columns = [Column("line", right=True), Column("code")] + [Column(s.value, right=True) for s in GROWTH_STAGES]
    columns.append(Column("x", right=True))
    rows: list[list[Cell]] = []
    for g in growth[:GROWTH_ROWS]:
        factor = f"{g.growth:.1f}" if g.growth is not None else ""
        rows.append([str(g.line), g.code, *(str(g.counts.get(s, "")) for s in GROWTH_STAGES), factor])
    lines += ["", *tables.draw(columns, rows, terminal.color, fold=(1, terminal.width))]
    if len(growth) > GROWTH_ROWS:
        lines += wrapped(f"({len(growth) - GROWTH_ROWS} smaller lines left out; --json has every line)", *shape, "2")
    return lines + wrapped(GROWTH_NOTE, *shape, "2")


def _dominant_text(top: LineGrowth, stage: Stage, share: float) -> str:
    """`most operations: line 10, 4,088 TTIR operations (97% of the kernel's), from unrolling
    `tl.static_range(512)` at line 9 (512 copies)`."""
    noun = "instructions" if stage is Stage.LLIR else "operations"
    count = f"{top.counts[stage]:,} {stage.value.upper()} {noun} ({share:.0%} of the kernel's)"
    said = f"most operations: line {top.line}, {count}"
    if top.unrolled_by:
        said += ", from unrolling " + " inside ".join(u.said for u in reversed(top.unrolled_by))
    return said


def _slowest_stage(stage_seconds: tuple[tuple[str, float], ...]) -> str:
    if not stage_seconds:
        return "stage times: not known (this Triton has no compilation listener)"
    total = sum(seconds for _, seconds in stage_seconds)
    name, seconds = max(stage_seconds, key=lambda item: item[1])
    share = 100 * seconds / total if total else 0.0
    # the stages' own times: the header's compile time also counts what runs between them
    return f"the stages took {_ms(total)} ms; the slowest: {name}, {_ms(seconds)} ms ({share:.0f}%)"


def stage_times_text(stage_seconds: tuple[tuple[str, float], ...]) -> str:
    """`front end 52 ms, ttir 3 ms, ...`: Triton's own timers (passes --time splits them by pass)."""
    return ", ".join(f"{name} {_ms(seconds)} ms" for name, seconds in stage_seconds)
