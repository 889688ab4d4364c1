"""`fit` in the terminal: per kernel, the matrix of configs (rows) x targets (columns), four lines per
cell (the verdict; registers and spills; shared memory, `!` where over the limit; occupancy),
then why each config that does not fit or compile fails, and what each config is. Columns that do not
fit the width are stacked into further tables, so the matrix reads at 80 columns. A column is as wide
as its widest cell (`NO budget` widens it): nothing in a cell is cut."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ...analysis.fitting import FITS, NO_FIT, UNKNOWN
from ...core.quantities import count, percentage
from ...results.fit import NO_COMPILE, NOT_COMPILED, Cell, FitResult, KernelFit
from .base import TerminalRenderer, print_folded
from .fit_rank import fastest, time_line

_CELL = 9  # the narrowest target column, its gap included: `128r 16s`, `227K!`, `12.5%`
_LINES = 4  # per cell
_ROW = 7  # the config column: `#12 *`
_SHORT = {
    "shared memory": "NO smem",
    "registers": "NO regs",
    "threads": "NO thr",
    "tensor memory": "NO tmem",
    "budget": "NO budget",
}
_STYLE = {FITS: "green", NO_FIT: "red", NO_COMPILE: "magenta", UNKNOWN: "yellow", NOT_COMPILED: "dim"}


class FitView(TerminalRenderer):
    def draw(self, console: Console, result: FitResult) -> None:
        for number, kernel in enumerate(result.kernels):
            if number:
                console.print()
            self._kernel(console, kernel, result.ranked)
        if result.budgets:
            console.print(Text(f"budgets: {', '.join(result.budgets)}", style="dim"))
        for note in result.notes:
            print_folded(console, f"note: {note}", "yellow", indent=2)
        if result.partial:
            console.print(Text(_partial(result), style="bold yellow"))

    def _kernel(self, console: Console, k: KernelFit, ranked: bool = False) -> None:
        shape = f"{count(len(k.rows), 'config')} x {count(len(k.targets), 'target')}"
        console.print(Text(f"{k.kernel} ({k.file}): {shape}", "bold"))
        if k.specialization:
            print_folded(console, f"specialized as {k.specialization}", "dim")
        shown = [_cell_line(cell, line) for row in k.cells for cell in row for line in range(_LINES)]
        if ranked:
            shown += [time_line(cell, True) for row in k.cells for cell in row]
        width = max([_CELL, *(len(text) + 1 for text in shown)])
        per_table = max(1, (self.terminal.width - _ROW) // width)
        for start in range(0, len(k.targets), per_table):
            console.print()
            _matrix(console, k, list(range(start, min(start + per_table, len(k.targets)))), width, ranked)
        _why(console, k)
        if ranked:
            fastest(console, k)
        _legend(console, k, ranked)


def _matrix(console: Console, k: KernelFit, columns: list[int], width: int, ranked: bool = False) -> None:
    header = "config".ljust(_ROW) + "".join(k.targets[c].ljust(width) for c in columns)
    console.print(Text(header.rstrip(), style="bold"))  # columns padded, the line's end not
    best = {c: {order[0] for _, order in k.ranked_by_size(k.targets[c])} for c in columns}  # each size's fastest
    for index, row in enumerate(k.rows):
        cells = [k.cells[index][c] for c in columns]
        name = f"#{index}{' *' if row.launched else ''}"
        for line in range(_LINES + 1 if ranked else _LINES):
            text = Text(name.ljust(_ROW) if line == 0 else " " * _ROW)
            for column, cell in zip(columns, cells, strict=True):
                first = index in best[column]
                style = _STYLE[cell.verdict] if line == 0 else ("bold green" if line == _LINES and first else "")
                shown = _cell_line(cell, line) if line < _LINES else time_line(cell, first)
                text.append(shown.ljust(width), style=style)
            text.rstrip()
            console.print(text, no_wrap=True)
    counts = "".join(f"{len(k.fitting(k.targets[c]))}/{len(k.rows)}".ljust(width) for c in columns)
    console.print(Text(("fit".ljust(_ROW) + counts).rstrip(), style="bold"), no_wrap=True)


def _cell_line(cell: Cell, line: int) -> str:
    """Line 0 the verdict, 1 registers and spills, 2 shared memory (`!` over the limit), 3 occupancy."""
    f = cell.figures
    if line == 0:
        return _SHORT.get(cell.limit or "", "NO fit") if cell.verdict == NO_FIT else _WORD[cell.verdict]
    if not f:
        return ""
    if line == 1:  # `128r 16s`, or `512r448s` where the space would push the unit out of the column
        spaced = f"{f['registers']}r {_count(f['spills'])}s"
        return spaced if len(spaced) < _CELL else spaced.replace(" ", "")
    if line == 2:
        shared = f"{f['shared'] / 1024:.0f}K" if f["shared"] >= 1024 else f"{f['shared']}B"
        return shared + ("!" if cell.limit == "shared memory" else "")
    return "" if cell.limit == "shared memory" else percentage(f["occupancy"])


_WORD = {FITS: "fits", NO_COMPILE: "ERROR", UNKNOWN: "fits?", NOT_COMPILED: "stopped"}


def _count(n: int) -> str:
    return f"{n / 1000:.0f}k" if n >= 1000 else str(n)


def _why(console: Console, k: KernelFit) -> None:
    """Each config's failures, the targets that share one reason together."""
    failures: dict[tuple[int, str, str, tuple[str, ...]], list[str]] = {}
    for index, row in enumerate(k.cells):
        for target, cell in zip(k.targets, row, strict=True):
            if cell.verdict in (NO_FIT, NO_COMPILE, UNKNOWN):
                failures.setdefault((index, cell.verdict, cell.reason, cell.buffers), []).append(target)
    if not failures:
        return
    console.print()
    console.print(Text("Why", style="bold"))
    for (index, verdict, reason, buffers), targets in failures.items():
        said = f"#{index} {', '.join(targets)}: {verdict}: {reason}"
        print_folded(console, said, marked=(f"{verdict}:", _STYLE[verdict]))
        for buffer in buffers:
            print_folded(console, buffer, "dim", "    ", 6)


def _legend(console: Console, k: KernelFit, ranked: bool = False) -> None:
    console.print()
    # rows and configs numbered apart (--vary beside the configs): every row says its config, #0 too
    apart = any(row.index is not None and row.index != index for index, row in enumerate(k.rows))
    for index, row in enumerate(k.rows):
        number = f" (config {row.index})" if row.index is not None and apart else ""
        launched = " (launched)" if row.launched else ""
        print_folded(console, f"#{index}{number}{launched}: {row.describe()}")
    legend = "rN registers (AMD: VGPRs), sN spills, K shared memory (LDS), % occupancy; ! over the limit"
    print_folded(console, legend, "dim", indent=2)
    if ranked:
        print_folded(console, "us/ms: the launch's estimated time on the target's GPU, * the fastest", "dim", indent=2)


def _partial(result: FitResult) -> str:
    cells = [cell for k in result.kernels for row in k.cells for cell in row]
    ended = sum(cell.verdict != NOT_COMPILED for cell in cells)
    return f"partial: Ctrl-C stopped fit after {ended} of {len(cells)} compiles; `stopped` cells were not compiled"
