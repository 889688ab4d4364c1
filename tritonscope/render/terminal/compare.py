"""`tritonscope compare`: two or three stages in columns, one block of rows per Python line.

Assembly (PTX, SASS, AMDGCN) is never cut: where its columns would be too narrow for whole
instructions, the stages go one under the other at the full width instead (or, with --wrap,
stay in columns with every line folded). IR lines too long for a column are cut with `…`.
"""

from __future__ import annotations

import itertools
import linecache
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from ...analysis import linemap, normalize
from ...core.model import Compilation
from ...core.stages import Listing, Stage
from ...results.dump import DumpResult
from .base import Terminal, TerminalRenderer, write_rows
from .code import Code, cells, listing_rows, pad, paint, rule, wrapped

SourceLine = tuple[str, int]
ASSEMBLY = {Stage.PTX, Stage.SASS, Stage.AMDGCN}  # whose operands must show whole
GAP = " │ "


class CompareView(TerminalRenderer):
    def __init__(self, terminal: Terminal | None = None, keep_loc: bool = False, wrap: bool = False):
        super().__init__(terminal)
        self.keep_loc, self.wrap = keep_loc, wrap

    def draw(self, console: Console, result: DumpResult) -> None:
        c, stages = result.compilation, list(result.stages)
        blocks = _blocks(c, stages, self.keep_loc, result.source_lines)
        write_rows(console.file, _rows(c, stages, blocks, self.terminal, self.wrap))


def _blocks(c: Compilation, stages: list[Stage], keep_loc: bool, only) -> list[tuple[SourceLine, list[Listing]]]:
    """For each Python line that became code in the chosen stages: what it became in each."""
    listings = {}
    for stage in stages:
        lines = normalize.shown(stage, c.stages[stage], keep_loc)
        # Columns are narrow: indentation and alignment padding would only push code out of view.
        listings[stage] = [(n, " ".join(text.split())) for n, text in lines]
    blocks = []
    for source in linemap.python_lines(c):
        if only is not None and source not in only:
            continue
        found = [normalize.only(listings[s], set(linemap.stage_lines(c, s, {source}))) for s in stages]
        if any(found[i] for i, stage in enumerate(stages) if stage is not Stage.SOURCE):
            blocks.append((source, found))
    return blocks


MIN_COLUMN = 32  # narrower, folded instructions would read badly: the stages go one under the other


def _rows(c: Compilation, stages: list[Stage], blocks, terminal: Terminal, wrap: bool) -> Iterator[str]:
    shown, fold, how = _layout(c, stages, blocks, terminal.width, wrap)
    titles = ", ".join(s.title for s in stages)
    intro = f"{c.kernel.name} on {c.variant.target}: {titles}, by Python line. {how}"
    yield from wrapped(intro, terminal.width, terminal.color, "2", 0)
    code = Code(_column_width(terminal.width, len(shown)) if shown else terminal.width, terminal.color, wrap)
    for index, (source, found) in enumerate(blocks):
        yield rule(_heading(c, source), terminal.width, terminal.color)
        if shown:
            kept = [found[stages.index(stage)] for stage in shown]
            yield from _columns(c, shown, kept, code, fold, index == 0)
        else:
            yield from _stacked(c, stages, found, code)
    if not blocks:
        yield paint([("33", "no Python line maps to code in these stages")], terminal.color)


def _layout(c: Compilation, stages: list[Stage], blocks, width: int, wrap: bool) -> tuple[list[Stage], bool, str]:
    """(the stages in columns, none for one under the other; whether assembly folds; a sentence
    saying so). Whole instructions first: the Python source column goes (each heading shows its
    line), then long instructions fold, then the stages go one under the other."""
    cut = "Long lines are folded." if wrap else "Long IR lines are cut at the column edge (…): --wrap folds them."
    if wrap or _assembly_fits(c, stages, stages, blocks, width):
        return stages, False, cut
    fewer = [stage for stage in stages if stage is not Stage.SOURCE]
    heading = "The Python source heads each block. " if len(fewer) < len(stages) else ""
    if _assembly_fits(c, stages, fewer, blocks, width):
        return fewer, False, heading + cut
    if _column_width(width, len(fewer)) >= MIN_COLUMN:
        return fewer, True, heading + "Long instructions are folded; " + cut[0].lower() + cut[1:]
    how = "Each Python line's code is shown stage under stage: columns would be too narrow for the instructions"
    return [], False, how + " (a wider terminal, or --wrap, puts them in columns)."


def _assembly_fits(c: Compilation, stages: list[Stage], shown: list[Stage], blocks, width: int) -> bool:
    column = _column_width(width, len(shown))
    return all(
        _widest(c, stage, found[stages.index(stage)]) <= column
        for _, found in blocks
        for stage in shown
        if stage in ASSEMBLY
    )


def _column_width(width: int, count: int) -> int:
    return (width - len(GAP) * (count - 1)) // count


def _widest(c: Compilation, stage: Stage, lines: Listing) -> int:
    """The columns the longest of these lines takes, behind its number."""
    if not lines:
        return 0
    numbers = len(str(max(n for n, _ in lines) + _offset(c, stage)))
    return numbers + 1 + max(cells(text) for _, text in lines)


def _offset(c: Compilation, stage: Stage) -> int:
    return c.kernel.first_line - 1 if stage is Stage.SOURCE else 0


def _columns(
    c: Compilation, stages: list[Stage], found: list[Listing], code: Code, fold: bool, header: bool
) -> Iterator[str]:
    if header:
        titles = [s.title[: code.width] for s in stages]
        yield GAP.join(paint([("1", pad(t, cells(t), code.width))], code.color) for t in titles).rstrip()
    parts = []
    for stage, lines in zip(stages, found, strict=True):
        own = replace(code, wrap=True) if fold and stage in ASSEMBLY else code
        parts.append(
            list(listing_rows(lines, stage, own, _offset(c, stage)))
            if lines
            else [(paint([("2", "—")], code.color), 1)]
        )
    for row in itertools.zip_longest(*parts, fillvalue=("", 0)):
        yield GAP.join(pad(text, used, code.width) for text, used in row[:-1]) + GAP * (len(row) > 1) + row[-1][0]


def _stacked(c: Compilation, stages: list[Stage], found: list[Listing], code: Code) -> Iterator[str]:
    for stage, lines in zip(stages, found, strict=True):
        yield paint([("1;36", f"{stage.title}:")], code.color) + ("" if lines else paint([("2", " —")], code.color))
        for text, _ in listing_rows(lines, stage, code, _offset(c, stage)) if lines else ():
            yield text


def _heading(c: Compilation, source: SourceLine) -> str:
    """`line 35: accumulator = tl.dot(a, b, accumulator)`; helpers in other files are named."""
    file, line = source
    where = f"line {line}" if file == c.kernel.file else f"{Path(file).name}:{line}"
    code = linecache.getline(file, line).strip()
    return f"{where}: {code}" if code else where
