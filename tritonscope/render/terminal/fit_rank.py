"""`fit --rank` in the terminal: each cell's estimated time (the matrix's fourth line), then per target
the fastest configs and why the runner-up is slower, and over a capture, the config the program
launched against the one the model picks."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ...analysis.launch_time import BOUND_WORDS, versus
from ...results.fit import Cell, KernelFit
from .base import print_folded

SHOWN = 3  # fastest configs named per target


def duration(us: float) -> str:
    """A launch's time in at most 6 characters: 9.87us, 123us, 1.23ms, 12.3ms, 1.23s."""
    if us < 10:
        return f"{us:.2f}us"
    if us < 1000:
        return f"{us:.0f}us" if us >= 100 else f"{us:.1f}us"
    if us < 1e6:
        ms = us / 1000
        return f"{ms:.2f}ms" if ms < 10 else f"{ms:.1f}ms" if ms < 100 else f"{ms:.0f}ms"
    return f"{us / 1e6:.2f}s"


def time_line(cell: Cell, first: bool) -> str:
    """The cell's fourth line: its estimated time (`*` the column's fastest), or `-` without one."""
    if cell.estimate is None:
        return "-" if cell.verdict != "does not compile" else ""
    return ("*" if first else "") + duration(cell.estimate.kernel_us)


def fastest(console: Console, k: KernelFit) -> None:
    """Per target: the fastest configs, why the runner-up is slower, the launched one's place."""
    console.print()
    console.print(Text("Fastest (estimated on each target's GPU)", style="bold"))
    unranked: dict[str, list[str]] = {}  # why no estimate -> the targets it holds for: said once
    for target in k.targets:
        if not k.ranked(target):
            notes = sorted({cell.estimate_note for cell in k.column(target) if cell.estimate_note})
            unranked.setdefault(notes[0] if len(notes) == 1 else "no estimate", []).append(target)
    for target in k.targets:
        column = k.column(target)
        if not k.ranked(target):
            said = next((note, targets) for note, targets in unranked.items() if target in targets)
            if said[1][0] == target:
                print_folded(console, f"{', '.join(said[1])}: {said[0]}")
            continue
        for size, order in k.ranked_by_size(target):  # one launch size's configs against each other
            best = column[order[0]].estimate
            # the bound beside the fastest alone: after the list it read as every config's (h23a)
            named = [f"#{i} {duration(column[i].estimate.kernel_us)}" for i in order[:SHOWN]]  # type: ignore[union-attr]
            named[0] += f" ({BOUND_WORDS.get(best.bound, best.bound)})"  # type: ignore[union-attr]
            at = f" at {size}" if size else ""
            print_folded(console, f"{target}{at}: {', '.join(named)}", indent=3)
            if len(order) > 1:
                other = column[order[1]].estimate
                _indented(console, f"#{order[1]} is slower than #{order[0]}: {versus(best, other)}", "dim")  # type: ignore[arg-type]
            _spills(console, column, order)
            _assumed(console, column, order)
            _launched(console, k, target, order)


def _assumed(console: Console, column: tuple[Cell, ...], order: tuple[int, ...]) -> None:
    """A ranking that rests on a trip count no argument gives (a persistent kernel's `while` loop over its
    tiles): said, with the assumption (h20a: unsloth's grouped GEMM, each tile size's work invented)."""
    assumed = [a for a in column[order[0]].estimate.assumptions if "assumed to run" in a]  # type: ignore[union-attr]
    if assumed:
        said = f"the ranking rests on {'; '.join(assumed)}, a trip count the arguments do not give: time the short list"
        _indented(console, said, "yellow")


def _spills(console: Console, column: tuple[Cell, ...], order: tuple[int, ...]) -> None:
    """A pick that spills, said: the model counts the spills' traffic, which a GPU may make worse (h20a:
    sm86's pick spilled 6 and was not said to)."""
    spills = column[order[0]].figures.get("spills") or 0
    if not spills:
        return
    clean = next((i for i in order[1:] if not column[i].figures.get("spills")), None)
    shown = f"#{clean} {duration(column[clean].estimate.kernel_us)}" if clean is not None else ""  # type: ignore[union-attr]
    other = f"time it against the fastest that does not, {shown}" if shown else "so does every config ranked"
    _indented(console, f"#{order[0]} spills ({spills}): {other}", "yellow")


def _indented(console: Console, text: str, style: str) -> None:
    """A line under a target's, wrapped with a hanging indent."""
    print_folded(console, text, style, "   ", 3)


def _launched(console: Console, k: KernelFit, target: str, order: tuple[int, ...]) -> None:
    """A capture's launched config, where it is not the model's pick: its time against the pick's."""
    launched = [i for i, row in enumerate(k.rows) if row.launched]
    if len(launched) != 1 or len(k.rows) < 2 or launched[0] == order[0]:
        if len(launched) == 1 and len(k.rows) > 1:
            _indented(console, f"the program launched #{launched[0]}, the model's pick too", "green")
        return
    mine, column = launched[0], k.column(target)
    best = column[order[0]].estimate
    own = column[mine].estimate
    if own is None or best is None:
        _indented(console, f"the program launched #{mine}: {column[mine].estimate_note or 'no estimate'}", "yellow")
        return
    ratio = own.kernel_us / best.kernel_us
    said = f"the program launched #{mine}: {duration(own.kernel_us)}, {ratio:.2f}x the pick #{order[0]}"
    _indented(console, f"{said}: {versus(best, own).partition(': ')[2]}", "yellow")
