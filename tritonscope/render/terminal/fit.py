"""`fit` in the terminal: per kernel, the matrix of configs (rows) x targets (columns), three lines per
cell (the verdict; registers and spills; shared memory and occupancy, or the figure against the limit),
then why each config that does not fit or compile fails, and what each config is. Columns that do not
fit the width are stacked into further tables, so the matrix reads at 80 columns."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ...analysis.fitting import FITS, NO_FIT, UNKNOWN
from ...results.fit import NO_COMPILE, Cell, FitResult, KernelFit
from .base import TerminalRenderer
from .fit_rank import fastest, time_line

_CELL = 9  # characters per target column, its gap included
_ROW = 7  # the config column: `#12 *`
_SHORT = {"shared memory": "NO smem", "registers": "NO regs", "threads": "NO thr", "tensor memory": "NO tmem"}
_STYLE = {FITS: "green", NO_FIT: "red", NO_COMPILE: "magenta", UNKNOWN: "yellow"}


class FitView(TerminalRenderer):
    def draw(self, console: Console, result: FitResult) -> None:
        for number, kernel in enumerate(result.kernels):
            if number:
                console.print()
            self._kernel(console, kernel, result.ranked)
        if result.budgets:
            console.print(Text(f"budgets: {', '.join(result.budgets)}", style="dim"))
        for note in result.notes:
            console.print(Text(f"note: {note}", style="yellow"))

    def _kernel(self, console: Console, k: KernelFit, ranked: bool = False) -> None:
        console.print(Text(f"{k.kernel} ({k.file}): {len(k.rows)} configs x {len(k.targets)} targets", "bold"))
        if k.specialization:
            console.print(Text(f"specialized as {k.specialization}", style="dim"), overflow="ellipsis", no_wrap=True)
        per_table = max(1, (self.terminal.width - _ROW) // _CELL)
        for start in range(0, len(k.targets), per_table):
            console.print()
            _matrix(console, k, list(range(start, min(start + per_table, len(k.targets)))), ranked)
        _why(console, k)
        if ranked:
            fastest(console, k)
        _legend(console, k, ranked)


def _matrix(console: Console, k: KernelFit, columns: list[int], ranked: bool = False) -> None:
    console.print(Text("config".ljust(_ROW) + "".join(k.targets[c].ljust(_CELL) for c in columns), style="bold"))
    best = {c: (k.ranked(k.targets[c]) or (None,))[0] for c in columns}
    for index, row in enumerate(k.rows):
        cells = [k.cells[index][c] for c in columns]
        name = f"#{index}{' *' if row.launched else ''}"
        for line in range(4 if ranked else 3):
            text = Text(name.ljust(_ROW) if line == 0 else " " * _ROW)
            for column, cell in zip(columns, cells, strict=True):
                first = best[column] == index
                style = _STYLE[cell.verdict] if line == 0 else ("bold green" if line == 3 and first else "")
                shown = _cell_line(cell, line) if line < 3 else time_line(cell, first)
                text.append(shown[: _CELL - 1].ljust(_CELL), style=style)
            console.print(text, no_wrap=True)
    counts = "".join(f"{len(k.fitting(k.targets[c]))}/{len(k.rows)}".ljust(_CELL) for c in columns)
    console.print(Text("fit".ljust(_ROW) + counts, style="bold"), no_wrap=True)


def _cell_line(cell: Cell, line: int) -> str:
    """Line 0 the verdict, 1 registers and spills, 2 shared memory and occupancy (or shared vs limit)."""
    f = cell.figures
    if line == 0:
        return _SHORT.get(cell.limit or "", "NO budg") if cell.verdict == NO_FIT else _WORD[cell.verdict]
    if not f:
        return ""
    if line == 1:  # `128r 16s`, or `512r448s` where the space would push the unit out of the column
        spaced = f"{f['registers']}r {_count(f['spills'])}s"
        return spaced if len(spaced) < _CELL else spaced.replace(" ", "")
    shared = f"{f['shared'] / 1024:.0f}K" if f["shared"] >= 1024 else f"{f['shared']}B"
    return shared + ("!" if cell.limit == "shared memory" else f" {f['occupancy']:.0f}%")


_WORD = {FITS: "fits", NO_COMPILE: "ERROR", UNKNOWN: "fits?"}


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
        line = Text(f"#{index} {', '.join(targets)}: ")
        line.append(f"{verdict}: ", style=_STYLE[verdict])
        console.print(line + Text(reason))
        for buffer in buffers:
            console.print(Text(f"    {buffer}", style="dim"))


def _legend(console: Console, k: KernelFit, ranked: bool = False) -> None:
    console.print()
    for index, row in enumerate(k.rows):
        number = f" (config {row.index})" if row.index is not None and row.index != index else ""
        launched = " (launched)" if row.launched else ""
        console.print(Text(f"#{index}{number}{launched}: {row.describe()}"))
    console.print(
        Text("rN registers (AMD: VGPRs), sN spills, K shared memory (LDS), % occupancy; ! over the limit", "dim")
    )
    if ranked:
        console.print(Text("us/ms: the launch's estimated time on the target's GPU, * the fastest", "dim"))
