"""`tritonscope diff` in the terminal: one resource row per variant, then the stage diffs."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from rich.console import Console

from ...analysis.diffing import StageDiff
from ...core.model import Compilation
from ...core.quantities import count, percentage, size_exact
from ...results.diff import DiffResult, VariantOutcome
from . import tables
from .base import Terminal, TerminalRenderer, write_rows
from .code import Code, cells, clean, fit, highlighted, pad, paint, rule, wrapped
from .code import diff_rows as unified_rows
from .compile_time import stage_time_lines
from .dump import widths
from .tables import Column, bands, fits, packed


def resource_columns(c: Compilation) -> dict[str, str]:
    r, mix = c.resources, c.resources.instructions
    assert mix is not None  # every compile's resources carry its mix (analysis/artifacts.py)
    occupancy = f"{percentage(r.occupancy.percent)} ({r.occupancy.limited_by})"
    return {
        "target": c.variant.target,
        "registers": str(r.registers),
        "spills": str(r.spills),
        "shared memory": size_exact(r.shared_bytes),
        "local memory": size_exact(r.local_bytes),
        "stack": size_exact(r.stack_bytes),  # where NVIDIA's spills go, beside a local memory of 0 B
        "occupancy": occupancy,
        "instructions": str(mix.total),
        "global loads": widths(mix.global_loads),
        "global stores": widths(mix.global_stores),
        "atomics": str(mix.atomics),
        "async copies": str(mix.async_copies),
        "shared loads/stores": f"{mix.shared_loads}/{mix.shared_stores}",
        "matrix ops": str(mix.matrix),
        "barriers": str(mix.barriers),
        "local loads/stores": f"{mix.local_loads}/{mix.local_stores}",
    }


LEGEND = "global loads/stores: count x bits per thread; local loads/stores are register spills"


def figure_rows(outcomes: list[VariantOutcome]) -> list[tuple[str, list[str], bool]]:
    """(figure, its value in each variant, whether the values differ), failed variants left blank."""
    rows = [resource_columns(o.compilation) if o.ok else None for o in outcomes]
    names = list(next((r for r in rows if r), {}))
    figures = []
    for name in names:
        values = [row[name] if row else "" for row in rows]
        figures.append((name, values, len({v for v, row in zip(values, rows, strict=True) if row}) > 1))
    return figures


def variant_legend(outcomes: list[VariantOutcome], terminal: Terminal) -> list[str]:
    """`[i] label` for each variant (with its autotune config spelled out), and why a variant failed."""
    lines = []
    for index, outcome in enumerate(outcomes):
        text = f"[{index}] {outcome.describe() or 'default'}"
        variant = outcome.compilation.variant if outcome.ok else None
        if variant is not None and variant.config is not None:
            configs = outcome.compilation.kernel.autotune_configs
            if variant.config < len(configs):  # the config as compiled: a value varied or given replaces its own
                given = {**variant.constexprs, **variant.options}
                values = configs[variant.config].values.items()
                said = [f"{k}={given[k]} (the config's {v})" if given.get(k, v) != v else f"{k}={v}" for k, v in values]
                which = "" if "config" in outcome.label else f"config {variant.config}: "  # --configs names it
                text += f": {which}{', '.join(said)}"
        if outcome.ok:
            lines += wrapped(text, terminal.width, terminal.color)
        else:
            lines += wrapped(f"{text}: FAILED: {outcome.error}", terminal.width, terminal.color, "1;31")
    return lines


def resource_lines(outcomes: list[VariantOutcome], terminal: Terminal) -> list[str]:
    """The figures of every variant: a column per variant where they fit, else a row per variant
    (the figures that differ as columns, in bands as wide as the terminal; the rest said once)."""
    figures = figure_rows(outcomes)
    ok = [i for i, o in enumerate(outcomes) if o.ok]
    columns = [Column("")] + [Column(f"[{i}]", right=True) for i in ok]
    rows = [[name + (" *" if differs else "")] + [values[i] for i in ok] for name, values, differs in figures]
    if fits(columns, rows, terminal.width):
        styles = ["1;33" if differs else "" for _, _, differs in figures]
        title = paint([("1", "figures (* = differs between variants)")], terminal.color)
        return [title, *tables.draw(columns, rows, terminal.color, row_styles=styles)]
    same = [(name, values[ok[0]]) for name, values, differs in figures if not differs]
    lines = [paint([("1", "the same in every variant:")], terminal.color)] if same else []
    lines += packed(same, terminal.width, terminal.color, indent=2)
    changing = [(name, values) for name, values, differs in figures if differs]
    size = [max(cells(name), *(cells(values[i]) for i in ok)) + tables.GAP for name, values in changing]
    for band in bands(len(changing), size.__getitem__, terminal.width - 5 - tables.GAP):
        band_columns = [Column("")] + [Column(changing[f][0], right=True) for f in band]
        band_rows = [[f"[{i}]"] + [changing[f][1][i] for f in band] for i in ok]
        lines += [paint([("1", "differs between variants:")], terminal.color)] if band.start == 0 else []
        lines += tables.draw(band_columns, band_rows, terminal.color)
    return lines


def diff_rows(result: DiffResult, index: int, side: bool, terminal: Terminal) -> Iterator[str]:
    """One stage diff, unified or side by side, as the result carries it."""
    diff, outcomes = result.diffs[index], result.outcomes
    old, new = outcomes[diff.old].describe(), outcomes[diff.new].describe()
    yield rule(f"{diff.stage.title}: [{diff.old}] {old}  →  [{diff.new}] {new}", terminal.width, terminal.color, "1;35")
    if not diff.changed:
        yield paint([("2", "identical after normalization")], terminal.color)
    elif side:
        yield from _side_by_side(diff, result.side_by_side[index], old, new, terminal)
    else:
        yield from unified_rows(result.unified[index], Code(terminal.width, terminal.color, wrap=True))
    yield ""


_MARKS = {"equal": (" ", ""), "replace": ("~", "33"), "delete": ("-", "31"), "insert": ("+", "32")}


def _side_by_side(diff: StageDiff, rows: tuple, old: str, new: str, terminal: Terminal) -> Iterator[str]:
    """Old and new in two columns, folded in each; a mark before each line says how it changed."""
    column = max((terminal.width - 3) // 2, 20)
    code = Code(column - 2, terminal.color, wrap=True)
    yield paint([("2", "~ changed, - removed, + added; ⋯ unchanged lines left out")], code.color)
    yield paint([("1", pad(old[:column], cells(old[:column]), column)), ("", " │ "), ("1", new[:column])], code.color)
    for tag, left, right in rows:
        if tag == "skip":
            yield paint([("2", pad("⋯", 1, column) + " │ ⋯")], code.color)
            continue
        mark, style = _MARKS[tag]
        sides = [_folded(line, diff, code, mark if line is not None else " ", style) for line in (left, right)]
        for a, b in itertools.zip_longest(*sides, fillvalue=("", 0)):
            yield pad(a[0], a[1], column) + " │ " + b[0]


def _folded(line: str | None, diff: StageDiff, code: Code, mark: str, style: str) -> list[tuple[str, int]]:
    if line is None:
        return [("", 0)]
    text = clean(line)
    segments = next(highlighted([text], diff.stage.lexer))
    rows = [(segments, cells(text))] if cells(text) <= code.width else fit(segments, text, code.width, True)
    marked = [paint([(style, mark if i == 0 else " "), ("", " ")] + row, code.color) for i, (row, _) in enumerate(rows)]
    return [(text, used + 2) for text, (_, used) in zip(marked, rows, strict=True)]


def _intro(outcomes: list, terminal: Terminal) -> list[str]:
    """`matmul_kernel (matmul.py): 2 variants, compiled for sm90`, folded at spaces to the width."""
    first = next(o.compilation for o in outcomes if o.ok)
    targets = list(dict.fromkeys(o.compilation.variant.target for o in outcomes if o.ok))
    where = (
        f"compiled for {targets[0]}"
        if len(targets) == 1
        else f"compiled for {', '.join(targets)} (the target row says which)"
    )
    said = f"{first.kernel.name} ({first.kernel.shown_file}): {count(len(outcomes), 'variant')}, {where}"
    return wrapped(said, terminal.width, terminal.color, "2", keep=(first.kernel.shown_file,))


class DiffView(TerminalRenderer):
    def __init__(self, terminal=None, side_by_side: bool = False):
        super().__init__(terminal)
        self.side_by_side = side_by_side

    def draw(self, console: Console, result: DiffResult) -> None:
        outcomes, terminal = list(result.outcomes), self.terminal
        first = next((o.compilation for o in outcomes if o.ok), None)
        lines = _intro(outcomes, terminal) if first is not None else []
        lines += variant_legend(outcomes, terminal)
        if first is not None:
            lines += resource_lines(outcomes, terminal) + wrapped(LEGEND, terminal.width, terminal.color, "2", 0)
            compilations = [o.compilation if o.ok else None for o in outcomes]
            lines += stage_time_lines(compilations, [f"[{i}]" for i in range(len(outcomes))], terminal)
        for note in result.missing:
            lines += wrapped(note, terminal.width, terminal.color, "33")
        write_rows(console.file, lines)
        for index in range(len(result.diffs)):
            write_rows(console.file, diff_rows(result, index, self.side_by_side, terminal))
