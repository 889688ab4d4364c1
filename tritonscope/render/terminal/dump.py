"""The terminal view: header, resource table and each stage as a highlighted panel."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ...analysis import linemap, normalize
from ...analysis.scoreboards import Schedule
from ...core.backends import Backend
from ...core.model import Compilation, InstructionMix, Resources
from ...core.quantities import count, percentage, size_exact
from ...core.stages import Listing, Stage
from ...results.dump import DumpResult
from .base import TerminalRenderer, write_rows
from .code import CUT, Code, Segments, cells, clean, highlighted, listing_rows, pad, paint, rule
from .partitions import partition_table

RICH_STYLES = {
    "35": "magenta",
    "36": "cyan",
    "32": "green",
    "32;1": "bold green",
    "33": "yellow",
    "34": "blue",
    "95": "bright_magenta",
    "90": "bright_black",
    "91": "bright_red",
}  # code.PALETTE's codes as rich styles
HINT_NAMES = {"D": "divisible by 16", "S": "in 32-bit range"}


def header(c: Compilation) -> RenderableType:
    v = c.variant
    target = v.target_info
    table = Table.grid(padding=(0, 2))
    # as wide as its widest key, "stage times" (a fresh compile's row): a cached run's header keeps the layout
    table.add_column(style="bold cyan", no_wrap=True, min_width=len("stage times"))
    table.add_column(overflow="fold")  # a long path wraps where it must, never cut with an ellipsis
    table.add_row("kernel", f"{c.kernel.name}  ({c.kernel.shown_file}:{c.kernel.line})")
    table.add_row("target", f"{target.name}: {target.label}, {target.description}")
    if v.config is not None:
        configs = c.kernel.autotune_configs
        said = f"config {v.config} of {len(configs)}"
        if 0 <= v.config < len(configs) and (changed := configs[v.config].overridden(v.constexprs, v.options)):
            said += ", but " + ", ".join(changed)
        table.add_row("autotune", said)
    if v.constexprs:
        table.add_row("constexprs", ", ".join(f"{k}={val}" for k, val in v.constexprs.items()))
    table.add_row("signature", signature_text(c))
    table.add_row("options", ", ".join(f"{k}={val}" for k, val in c.options.items() if val is not None))
    if v.cached:
        table.add_row("compiled", f"earlier, by Triton {c.triton_version}: read from its cache, not recompiled")
    elif c.cache_hit:
        table.add_row(
            "compiled", f"earlier: read from Triton's cache in {c.compile_seconds:.2f} s (Triton {c.triton_version})"
        )
    else:
        table.add_row("compiled", f"in {c.compile_seconds:.2f} s by Triton {c.triton_version}")
    if c.stage_seconds and not c.cache_hit:
        from .compile_time import stage_times_text  # here: its analysis modules cost a cached dump ~30 ms of imports

        table.add_row("stage times", stage_times_text(c.stage_seconds))
    table.add_row("reproduce", Text(v.command_line(), style="dim"))
    return Panel(table, title="tritonscope", title_align="left", border_style="cyan")


def signature_text(c: Compilation) -> str:
    parts = []
    for name, type_ in c.variant.signature.items():
        if type_ == "constexpr" and name in c.variant.arguments:
            parts.append(f"{name}={c.variant.arguments[name]} (constant)")
        elif type_ != "constexpr":
            notes = [HINT_NAMES[h] for h in c.variant.hints.get(name, "") if h in HINT_NAMES]
            if name in c.variant.inferred:
                notes.append(inferred_note(name, type_))
            parts.append(f"{name}: {type_}" + (f" ({'; '.join(notes)})" if notes else ""))
    return ", ".join(parts) or ("not recorded (read from a cache)" if c.variant.cached else "none")


def inferred_note(name: str, type_: str) -> str:
    """What to say of an argument type tritonscope guessed: that it did, and how to give it."""
    if type_.startswith("*"):
        return f"inferred; give -a {name}='*fp16' or --dtype"
    example = "1e-6" if type_.startswith(("fp", "bf")) else "4096"
    return f"inferred; give -a {name}={example}"


def resource_rows(resources: Resources, backend: Backend, partitions=()) -> list[tuple[str, str, str]]:
    """The resource figures as (what, value, meaning) rows: dump's table, and the explorer's panel."""
    occ = resources.occupancy
    words = backend.words
    unit, place = words.warps, words.multiprocessor
    budgets = [p.registers for p in partitions if p.registers]
    moved = f"; setmaxnreg gives the partitions {', '.join(map(str, budgets))}" if budgets else ""
    rows = [(words.registers, str(resources.registers), f"per thread{' at launch' if moved else ''}{moved}")]
    if resources.sgprs is not None:
        rows.append(("SGPRs", str(resources.sgprs), "per wavefront"))
    rows.append(("spills", str(resources.spills), words.spills))
    rows.append((words.shared, size_exact(resources.shared_bytes), "per block"))
    rows.append((words.local, size_exact(resources.local_bytes), "per thread"))
    if backend.name == "cuda":
        rows.append(("stack", size_exact(resources.stack_bytes), "per thread"))
    occupancy = (
        f"{count(occ.blocks_per_sm, 'block')} = {occ.warps_per_sm} of {occ.max_warps_per_sm} {unit} per {place}, "
        f"limited by {occ.limited_by}"
    )
    if occ.per:  # one SIMD's figures (LLVM's): how many blocks a CU holds is not known
        occupancy = f"{occ.warps_per_sm} of {occ.max_warps_per_sm} {unit} per {occ.per} (LLVM's), "
        occupancy += f"limited by {occ.limited_by}"
    rows.append(("occupancy", percentage(occ.percent), occupancy))
    return rows


def resource_table(resources: Resources, backend: Backend, partitions=()) -> RenderableType:
    table = Table(title="resources", title_justify="left", show_header=True, header_style="bold")
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_column("meaning", style="dim")
    for name, value, meaning in resource_rows(resources, backend, partitions):
        table.add_row(name, value, meaning)
    if resources.instructions is not None:
        for name, value, meaning in mix_rows(resources.instructions, backend):
            table.add_row(name, value, meaning)
    parts: list[RenderableType] = [table]
    parts += [Text(f"warning: {w}", style="bold yellow") for w in resources.warnings]
    return Group(*parts)


def widths(counts: dict[int, int]) -> str:
    """{128: 4, 32: 2} as `4x128b 2x32b`; `0` when empty."""
    return " ".join(f"{n}x{w}b" for w, n in sorted(counts.items(), reverse=True)) or "0"


def mix_rows(mix: InstructionMix, backend: Backend) -> list[tuple[str, str, str]]:
    """The instruction mix as (name, value, meaning) rows, shared by dump and diff."""
    code, words = backend.machine_code.title, backend.words
    return [
        ("instructions", str(mix.total), f"in the {code} listing"),
        ("global loads", widths(mix.global_loads), "count x bits per thread: wider is better"),
        ("global stores", widths(mix.global_stores), "count x bits per thread"),
        ("atomics", str(mix.atomics), "read-modify-writes of global memory"),
        ("async copies", str(mix.async_copies), "global to shared (LDGSTS, TMA)"),
        (
            "shared loads/stores",
            f"{mix.shared_loads}/{mix.shared_stores}",
            words.shared_ops,
        ),
        ("matrix ops", str(mix.matrix), words.matrix_ops),
        ("barriers", str(mix.barriers), "block-wide synchronizations"),
        ("local loads/stores", f"{mix.local_loads}/{mix.local_stores}", words.local_ops),
    ]


def stage_rows(c: Compilation, stage: Stage, view: View, code: Code) -> Iterator[str]:
    """One stage: its title, then each line highlighted behind its number; filtered and annotated
    as `view` says. Rows come one at a time, so a pager shows the first ones while the rest are drawn."""
    total = len(c.stages[stage].splitlines())
    lines = normalize.shown(stage, c.stages[stage], view.keep_loc)
    title = f"{stage.title}  ({count(total, 'line')})"
    if view.source_lines is not None:
        lines = normalize.only(lines, set(_from_lines(c, stage, view)))
        title = f"{stage.title}  ({len(lines):,} of {total:,} lines from {view.describe()})"
    yield rule(title, code.width, code.color)
    if not lines:
        yield paint([("33", f"no line of {stage.title} comes from {view.describe()}")], code.color)
    elif stage is Stage.SOURCE and view.source_lines and not _made_code(c, view.source_lines):
        yield paint([("33", f"{view.describe()} made no code: no other stage has a line from it")], code.color)
    gutter = _source_gutter(c, stage) if view.annotate and stage is not Stage.SOURCE else None
    if view.schedule is not None and stage is Stage.SASS:
        yield from (paint([("90", note)], code.color) for note in CONTROL_NOTE.splitlines())
        gutter = {s.listing_line: view.schedule.controls[s.offset].text for s in view.schedule.listing.instructions}
    lines = _fitted(lines, stage, code.width, gutter)
    for row, _ in listing_rows(lines, stage, code, _offset(c, stage), gutter):
        yield row
    yield ""


def _fitted(lines: Listing, stage: Stage, width: int, gutter: dict[int, str] | None) -> Listing:
    """Assembly whose padded columns run past the terminal's edge on more than a tenth of its lines
    (nvdisasm pads an instruction 35 columns in, `--control` adds 20 more) with its runs of spaces cut,
    as the explorer's panes show it: the instruction is read, not cut at 80 columns."""
    if stage not in normalize.SQUEEZED or not lines:
        return lines
    margin = len(str(lines[-1][0])) + 2 + (max(map(len, gutter.values()), default=0) + 3 if gutter else 0)
    over = sum(1 for _, text in lines if len(text.expandtabs(8)) + margin > width)
    return normalize.compacted(stage, lines) if over > len(lines) // 10 else lines  # most fit: kept as written


@dataclass(frozen=True)
class View:
    """How stages are shown: location noise kept or not, a source-line gutter, a line filter."""

    keep_loc: bool = False
    annotate: bool = False
    source_lines: frozenset[tuple[str, int]] | None = None  # show only what these Python lines became
    schedule: Schedule | None = None  # --control: the SASS's control codes, in the gutter

    def describe(self) -> str:
        numbers = sorted(line for _, line in self.source_lines or ())
        if len(numbers) > 1 and numbers == list(range(numbers[0], numbers[-1] + 1)):
            return f"Python lines {numbers[0]}-{numbers[-1]}"
        return f"Python line{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"


def _made_code(c: Compilation, source_lines: frozenset[tuple[str, int]]) -> bool:
    """Whether any stage but the source has a line from these Python lines."""
    return any(linemap.stage_lines(c, stage, set(source_lines)) for stage in c.stages if stage is not Stage.SOURCE)


def _from_lines(c: Compilation, stage: Stage, view: View) -> list[int]:
    """The lines of `stage` from the Python lines asked for; of the source, those lines themselves (a
    comment's line made no code, and the source said "no line of Python source comes from" it: h24a)."""
    if stage is not Stage.SOURCE:
        return linemap.stage_lines(c, stage, set(view.source_lines or ()))
    first = _offset(c, stage)
    return [n - first for file, n in view.source_lines or () if file == c.kernel.file and n > first]


def _offset(c: Compilation, stage: Stage) -> int:
    """The source is numbered as in its file; every other stage from 1."""
    return c.kernel.first_line - 1 if stage is Stage.SOURCE else 0


def highlight(code: str, stage: Stage) -> Text:
    """One or more lines of a stage, highlighted, as rich Text."""
    rows = [_rich(segments, Text()) for segments in highlighted([clean(t) for t in code.split("\n")], stage.lexer)]
    text = Text("\n").join(rows)
    text.rstrip()
    return text


def _rich(segments: Segments, text: Text) -> Text:
    for style, part in segments:
        text.append(part, style=RICH_STYLES.get(style))
    return text


GUTTER = 16  # columns at most for `--annotate`'s source lines


def _source_gutter(c: Compilation, stage: Stage) -> dict[int, str]:
    """For each line of a stage, the Python line(s) it came from: `py 35`, `py 35,40`; lines of
    helpers in other files (inlined calls) are counted, `py 35 +2`, or named when alone, `other.py:9`."""
    return {number: _gutter_text(c, sources) for number, sources in c.line_map.get(stage, {}).items()}


def _gutter_text(c: Compilation, sources) -> str:
    own = sorted({line for file, line in sources if file == c.kernel.file})
    parts = [str(line) for line in own] or [f"{Path(file).name}:{line}" for file, line in sources[:1]]
    more = len(set(sources)) - len(parts)
    text = "py " + ",".join(parts) + (f" +{more}" if more else "")
    return text if len(text) <= GUTTER else text[: GUTTER - 1] + CUT


ANNOTATE_NOTE = "--annotate: py N is line N of the kernel's file; +K, K more lines in helpers it calls"
CONTROL_NOTE = (  # lines of at most 80 columns
    "--control (CuAssembler's notation): B the scoreboards it waits on,\n"
    "R the one released once its sources are read, W once its result is written,\n"
    "Y the yield hint, S the cycles to its next issue"
)


def side_by_side(c: Compilation, stages: list[Stage], view: View, code: Code) -> Iterator[str]:
    """Two stages in columns, each cut (or folded) at its column's edge."""
    column = max((code.width - 3) // 2, 20)
    narrow = replace(code, width=column)
    columns = []
    for stage in stages:
        lines = normalize.shown(stage, c.stages[stage], view.keep_loc)
        if view.source_lines is not None:
            lines = normalize.only(lines, set(linemap.stage_lines(c, stage, view.source_lines)))
        # assembly's padding cut as the full view cuts it: at 80 columns a SASS column showed addresses only
        columns.append(listing_rows(_fitted(lines, stage, column, None), stage, narrow, _offset(c, stage)))
    titles = [
        paint([("1", pad(stage.title[:column], cells(stage.title[:column]), column))], code.color) for stage in stages
    ]
    yield " │ ".join(titles)
    for left, right in itertools.zip_longest(*columns, fillvalue=("", 0)):
        yield pad(*left, column) + " │ " + right[0]


class DumpView(TerminalRenderer):
    """`dump` in the terminal: header, resources, then each stage (or two side by side)."""

    def __init__(
        self,
        terminal=None,
        keep_loc: bool = False,
        annotate: bool = False,
        side_by_side: bool = False,
        wrap: bool = False,
    ):
        super().__init__(terminal)
        self.keep_loc, self.annotate, self.side_by_side, self.wrap = keep_loc, annotate, side_by_side, wrap

    def draw(self, console: Console, result: DumpResult) -> None:
        c = result.compilation
        view = View(self.keep_loc, self.annotate, result.source_lines, result.schedule)
        code = Code(self.terminal.width, self.terminal.color, self.wrap)
        console.print(header(c))
        console.print(resource_table(c.resources, c.variant.target_info.vendor, c.partitions))
        if c.partitions:
            console.print(partition_table(c.partitions))
        cut = _Cuts()
        if self.side_by_side:
            write_rows(console.file, cut.seen(side_by_side(c, list(result.stages), view, code)))
        else:
            if self.annotate:
                console.print(Text(ANNOTATE_NOTE, style="dim"))
            for stage in result.stages:
                write_rows(console.file, cut.seen(stage_rows(c, stage, view, code)))
        if cut.any and not self.wrap and not self.terminal.color:  # a file's reader sees no edge: said
            width = self.terminal.width
            said = f"long lines are cut at {width} columns (…): --wrap folds them, -o DIR writes each stage whole"
            console.print(Text(said, style="dim"))


class _Cuts:
    """Whether rows written ended cut at the edge (CUT)."""

    def __init__(self) -> None:
        self.any = False

    def seen(self, rows):
        for row in rows:
            self.any = self.any or row.rstrip().endswith(CUT)
            yield row
