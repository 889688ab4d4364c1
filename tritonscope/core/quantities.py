"""Quantities said the same way by every view: a count with its noun (`1 block`, `2 blocks`), a size
in bytes (`512 B`, `1.016 KiB`), a percentage (`12.5%`, `100%`). The JSON documents keep the numbers."""

from __future__ import annotations

from collections.abc import Iterable


def plural(n: int, noun: str, many: str | None = None) -> str:
    """The noun for N of it: `block` for 1, `blocks` (or `many`) for any other count."""
    return noun if n == 1 else many or f"{noun}s"


def count(n: int, noun: str, many: str | None = None) -> str:
    """`1 block`, `2 blocks`, `1,024 registers`."""
    return f"{n:,} {plural(n, noun, many)}"


def size(n: float) -> str:
    """Bytes in a sentence or a header: `512 B` under 1 KiB, else KiB (MiB from 1 MiB) to four
    significant digits: `1.016 KiB`, `96 KiB`, `227 KiB`."""
    if n < 1024:
        return f"{n:,.0f} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.4g} KiB"
    return f"{n / (1024 * 1024):.4g} MiB"


def size_exact(n: int) -> str:
    """Bytes in a table of figures: the exact count, and the size as `size` says it where that is
    shorter: `1,040 B (1.016 KiB)`, `512 B`."""
    return f"{n:,} B ({size(n)})" if n >= 1024 else f"{n:,} B"


def percentage(value: float) -> str:
    """A percentage to one decimal at most, as occupancy is said everywhere: `12.5%`, `43.8%`, `100%`."""
    return f"{value:.1f}".removesuffix(".0") + "%"


def number_ranges(numbers: Iterable[int], most: int | None = None) -> str:
    """Ascending numbers as runs: 14, 15, 16, 18 -> '14-16, 18'; at most `most` runs, then ' ...'."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    text = [f"{a}-{b}" if b > a else str(a) for a, b in runs[:most]]
    return ", ".join(text) + (" ..." if most is not None and len(runs) > most else "")
