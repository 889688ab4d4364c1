"""`tritonscope passes`: the pass pipeline as a table, and what chosen passes did."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from rich.console import Console
from rich.text import Text

from ...analysis import normalize
from ...analysis.compile_time import CompileTiming
from ...analysis.passes import LlvmPassRecord, PassRecord
from ...core.quantities import count
from ...core.stages import Stage
from ...results.passes import PassesComparison, PassesResult
from . import tables
from .base import Terminal, TerminalRenderer, write_rows
from .code import Code, diff_rows, listing_rows, paint, rule, wrapped
from .compile_time import timing_lines
from .tables import Cell, Column, fits

CHANGE_NOTE = "change: lines added and removed (dim: the IR was left as it was; ?: not known)"


def _change(changed: bool | None, added: int, removed: int) -> str:
    if changed is None:
        return "?"
    return f"+{added} -{removed}" if changed else ""


def table(records: list[PassRecord], title: str, terminal: Terminal) -> list[str]:
    """The passes in order, each name whole (`--show` takes it), under a heading for each level of
    IR they run on. The class column comes last, only where the terminal is wide enough for it."""
    columns = [Column("#", right=True), Column("pass"), Column("change", right=True), Column("run")]
    rows: list[list[Cell]] = []
    for r in records:
        run = f"{r.occurrence} of {r.occurrences}" if r.occurrences > 1 else ""
        substeps = f" (+{count(len(r.substeps), 'step')})" if r.substeps else ""
        rows.append([str(r.index), r.name + substeps, _change(r.changed, r.added, r.removed), run])
    lines = [paint([("1", title)], terminal.color)]
    with_class = [row + [r.class_name] for row, r in zip(rows, records, strict=True)]
    if fits([*columns, Column("class")], with_class, terminal.width):
        columns, rows = [*columns, Column("class")], with_class
    else:
        lines.append(paint([("2", "(each pass's class: --json, or a wider terminal)")], terminal.color))
    styles = ["1" if r.changed else "2" for r in records]
    head, body = tables.drawn(columns, rows, terminal.color, row_styles=styles)
    return lines + head + tables.headed(records, body, lambda r: f"on {r.level}:", terminal.color)


def llvm_table(records: list[LlvmPassRecord], terminal: Terminal) -> list[str]:
    """LLVM's passes in order, under a heading for each module, function or loop they ran on."""
    columns = [Column("#", right=True), Column("pass"), Column("change", right=True)]
    rows: list[list[Cell]] = [[str(r.index), r.name, _change(r.changed, r.added, r.removed)] for r in records]
    styles = ["1" if r.changed else "2" for r in records]
    head, body = tables.drawn(columns, rows, terminal.color, row_styles=styles, fold=(1, terminal.width))
    return [paint([("1", "LLVM passes (LLVM IR after each)")], terminal.color), *head] + tables.headed(
        records, body, lambda r: f"on {r.scope}:", terminal.color
    )


def shown(
    record: PassRecord, full: bool, keep_loc: bool, terminal: Terminal, diff: tuple[str, ...] = ()
) -> Iterator[str]:
    """One pass: its title, then what it did (`diff`, unified), or the whole IR after it (`full`)."""
    title = f"pass {record.index}: {record.label} ({record.class_name}) on {record.level}"
    code = Code(terminal.width, terminal.color, wrap=True)
    if full:
        title += ": the IR after it" if record.after is not None else ": the IR before it (the after is unknown)"
    yield rule(title, terminal.width, terminal.color, "1;35")
    if full:
        ir = record.after if record.after is not None else record.before
        lines = normalize.shown(Stage.TTGIR, ir, keep_loc)
        yield from (row for row, _ in listing_rows(lines, Stage.TTGIR, replace(code, wrap=False)))
    elif record.changed is False:
        yield paint([("2", "no change (after normalization)")], terminal.color)
    elif record.after is None:
        yield paint([("33", "the IR after this pass was not dumped")], terminal.color)
    else:
        yield from diff_rows(list(diff), code)
    for name, _ in record.substeps:
        yield paint([("36", f"internal step: {name}")], terminal.color)
    yield ""


class PassesView(TerminalRenderer):
    def __init__(self, terminal=None, only_changed: bool = False, full: bool = False, keep_loc: bool = False):
        super().__init__(terminal)
        self.only_changed, self.full, self.keep_loc = only_changed, full, keep_loc

    def draw(self, console: Console, result: PassesResult) -> None:
        selected = list(result.selected) if result.selected is not None else None
        llvm = list(result.llvm_records) if result.llvm_records is not None else None
        records = list(result.records)
        options = (self.only_changed, self.full, self.keep_loc)
        if result.timing is not None and selected is None:
            _draw_timed(console, self.terminal, result, result.timing, llvm, self.only_changed)
            return
        _draw(console, self.terminal, result, records, llvm, selected, *options)


def _draw_timed(
    console: Console, terminal: Terminal, result: PassesResult, timing: CompileTiming, llvm, only_changed: bool
) -> None:
    """`passes --time`: the compile's steps with their times (`result.timing`), instead of the plain pass table."""
    variant = result.variant
    console.print(Text(f"{variant.kernel} on {variant.target}: {len(result.records)} MLIR passes", style="dim"))
    keep = {r.index for r in result.records if r.changed} if only_changed else None
    lines = timing_lines(timing, keep, terminal)
    if llvm is not None:
        lines += [""] + llvm_table([r for r in llvm if r.changed] if only_changed else llvm, terminal)
    write_rows(console.file, lines)


def _draw(
    console: Console,
    terminal: Terminal,
    result: PassesResult,
    records: list[PassRecord],
    llvm: list[LlvmPassRecord] | None,
    selected: list[PassRecord] | None,
    only_changed: bool,
    full: bool,
    keep_loc: bool,
) -> None:
    changed, variant = sum(1 for r in records if r.changed), result.variant
    console.print(
        Text(f"{variant.kernel} on {variant.target}: {len(records)} MLIR passes, {changed} changed the IR", style="dim")
    )
    if selected is None:
        rows = [r for r in records if r.changed] if only_changed else records
        lines = table(rows, "MLIR passes (IR before each, in order)", terminal)
        if llvm is not None:
            lines += [""] + llvm_table([r for r in llvm if r.changed] if only_changed else llvm, terminal)
        write_rows(console.file, [*lines, paint([("2", CHANGE_NOTE)], terminal.color)])
        return
    for record in selected:
        write_rows(console.file, shown(record, full, keep_loc, terminal, result.diffs.get(record.index, ())))


class PassesComparisonView(TerminalRenderer):
    """`passes --vary`: what each pipeline runs that the other does not, then the first pass whose
    output differs, with what it did in each and how its outputs differ."""

    def draw(self, console: Console, result: PassesComparison) -> None:
        first = result.results[0]
        width, color = self.terminal.width, self.terminal.color
        lines = wrapped(f"{first.variant.kernel} on {first.variant.target}: two pass pipelines", width, color, "1")
        for which, (label, passes) in enumerate(zip(result.labels, result.results, strict=True)):
            text = f"[{which}] {label}: Triton {passes.triton_version}, {len(passes.records)} MLIR passes"
            lines += wrapped(text, width, color)
        for which, label in enumerate(result.labels):
            only = result.only_in(which)
            if only:  # names whole, one per line where they do not fit: --show takes them
                lines += wrapped(f"only in [{which}] {label}: " + ", ".join(only), width, color, "36")
        lines += ["", *_divergence_lines(result, self.terminal)]
        write_rows(console.file, lines)


def _divergence_lines(result: PassesComparison, terminal: Terminal) -> list[str]:
    d, labels = result.divergence, result.labels
    shape = (terminal.width, terminal.color)
    if d.kind == "none":
        return wrapped("every pass's output is the same in both (after normalization)", *shape, "32")
    if d.kind == "input":
        return [
            *wrapped("the IR given to the first pass already differs: the front end differs", *shape, "1;33"),
            *diff_rows(list(result.across), Code(terminal.width, terminal.color)),
        ]
    where = ", ".join(f"#{r.index} in [{i}]" for i, r in enumerate((d.first, d.second)) if r is not None)
    name = (d.first or d.second).label
    if d.kind == "changed":
        heading = f"first difference: {name} ({where}) gives different output from the same input"
    else:
        heading = f"first difference: {name} ({where}), run by one pipeline only, leaves different IR"
    lines = wrapped(heading, terminal.width, terminal.color, "1;33")
    for which, (record, diff) in enumerate(((d.first, result.first_diff), (d.second, result.second_diff))):
        if record is not None:
            lines += [f"[{which}] {labels[which]}:", *shown(record, False, False, terminal, diff)]
    if d.first is not None and d.second is not None:
        lines.append(rule(f"the output of {name}: [0] -> [1]", terminal.width, terminal.color, "1;35"))
        lines += diff_rows(list(result.across), Code(terminal.width, terminal.color))
    return lines
