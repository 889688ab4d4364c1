"""`tritonscope compare`: two or three stages in columns, one block of rows per Python line."""

from __future__ import annotations

import linecache
from pathlib import Path

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from ...analysis import linemap, normalize
from ...core.model import Compilation
from ...core.results import DumpResult
from ...core.stages import Stage
from .base import Terminal, TerminalRenderer
from .dump import highlight, numbered

SourceLine = tuple[str, int]


class CompareView(TerminalRenderer):
    def __init__(self, terminal: Terminal | None = None, keep_loc: bool = False, wrap: bool = False):
        super().__init__(terminal)
        self.keep_loc, self.wrap = keep_loc, wrap

    def draw(self, console: Console, result: DumpResult) -> None:
        stages = list(result.stages)
        _draw(console, result.compilation, stages, self.keep_loc, self.wrap, result.source_lines)


def _draw(
    console: Console,
    c: Compilation,
    stages: list[Stage],
    keep_loc: bool,
    wrap: bool,
    only: frozenset[SourceLine] | None,
) -> None:
    listings = {}
    for stage in stages:
        lines = normalize.shown(stage, c.stages[stage], keep_loc)
        # Columns are narrow: indentation and alignment padding would only push code out of view.
        listings[stage] = [(n, " ".join(text.split())) for n, text in lines]
    python = [s for s in linemap.python_lines(c) if only is None or s in only]
    overflow = "fold" if wrap else "ellipsis"
    console.print(
        Text(
            f"{c.kernel.name} on {c.variant.target}: {', '.join(s.title for s in stages)}, by Python line. "
            + ("Long lines are folded." if wrap else "Long lines are cut at the column edge (…): --wrap folds them."),
            style="dim",
        )
    )
    shown = 0
    for source in python:
        cells = []
        for stage in stages:
            wanted = set(linemap.stage_lines(c, stage, {source}))
            cells.append(normalize.only(listings[stage], wanted))
        if not any(cells[i] for i, stage in enumerate(stages) if stage is not Stage.SOURCE):
            continue  # this line became no code in the chosen stages
        shown += 1
        console.print(Rule(_heading(c, source), align="left", style="blue"))
        table = Table(show_header=shown == 1, header_style="bold", expand=True, box=None, padding=(0, 1))
        for stage in stages:
            table.add_column(stage.title, ratio=1, overflow=overflow, no_wrap=not wrap)
        table.add_row(
            *[
                numbered(lines, stage, c.kernel.first_line) if lines else Text("—", style="dim")
                for stage, lines in zip(stages, cells, strict=True)
            ]
        )
        console.print(table)
    if shown == 0:
        console.print(Text("no Python line maps to code in these stages", style="yellow"))


def _heading(c: Compilation, source: SourceLine) -> Text:
    """`line 35: accumulator = tl.dot(a, b, accumulator)`; helpers in other files are named."""
    file, line = source
    where = f"line {line}" if file == c.kernel.file else f"{Path(file).name}:{line}"
    code = linecache.getline(file, line).strip()
    return Text.assemble((f"{where}: ", "bold"), highlight(code, Stage.SOURCE) if code else "")
