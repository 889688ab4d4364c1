"""Plain tables that never cut what is in them: a view checks `fits` and, when a table is too
wide for the terminal, draws fewer columns, bands of columns, or one block per row instead.

Cells are text, or (text, SGR style); rows are painted with code.paint, so no colour means no
escape codes at all.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from .code import cells, fitting, paint

Cell = str | tuple[str, str]
GAP = 2
HEADER_STYLE, RULE_STYLE = "1", "2"


@dataclass(frozen=True)
class Column:
    header: str
    right: bool = False  # numbers are right-aligned


def text_of(cell: Cell) -> str:
    return cell if isinstance(cell, str) else cell[0]


def widths(columns: Sequence[Column], rows: Sequence[Sequence[Cell]]) -> list[int]:
    return [max([cells(column.header)] + [cells(text_of(row[i])) for row in rows]) for i, column in enumerate(columns)]


def width(columns: Sequence[Column], rows: Sequence[Sequence[Cell]], indent: int = 0) -> int:
    sizes = widths(columns, rows)
    return indent + sum(sizes) + GAP * (len(sizes) - 1)


def fits(columns: Sequence[Column], rows: Sequence[Sequence[Cell]], room: int, indent: int = 0) -> bool:
    return width(columns, rows, indent) <= room


def draw(
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell]],
    color: bool,
    indent: int = 0,
    row_styles: Sequence[str] | None = None,
    fold: tuple[int, int] | None = None,
) -> list[str]:
    head, body = drawn(columns, rows, color, indent, row_styles, fold)
    return head + [line for lines in body for line in lines]


def drawn(
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell]],
    color: bool,
    indent: int = 0,
    row_styles: Sequence[str] | None = None,
    fold: tuple[int, int] | None = None,
) -> tuple[list[str], list[list[str]]]:
    """(the header and a rule under it, each row's lines), every cell whole and padded to its column.
    fold=(column, room): where the table is wider than room, that column is narrowed and its
    long cells go on over the next lines (split after `<`, `:`, `-`, `_`, `.` or a space)."""
    sizes = widths(columns, rows)
    if fold is not None and indent + sum(sizes) + GAP * (len(sizes) - 1) > fold[1]:
        excess = indent + sum(sizes) + GAP * (len(sizes) - 1) - fold[1]
        sizes[fold[0]] = max(sizes[fold[0]] - excess, 12)
    lead = " " * indent
    header = [(HEADER_STYLE, _aligned(c.header, size, c.right)) for c, size in zip(columns, sizes, strict=True)]
    line = "─" * (sum(sizes) + GAP * (len(sizes) - 1))
    head = [lead + _join(header, color).rstrip(), lead + paint([(RULE_STYLE, line)], color)]
    body = []
    for index, row in enumerate(rows):
        default = row_styles[index] if row_styles else ""
        pieces = [_pieces(text_of(cell), size) for cell, size in zip(row, sizes, strict=True)]
        lines = []
        for depth in range(max(len(p) for p in pieces)):
            painted = []
            for cell, column, size, parts in zip(row, columns, sizes, pieces, strict=True):
                style = default if isinstance(cell, str) else cell[1]
                painted.append((style, _aligned(parts[depth] if depth < len(parts) else "", size, column.right)))
            lines.append(lead + _join(painted, color).rstrip())
        body.append(lines)
    return head, body


def _pieces(text: str, size: int) -> list[str]:
    pieces = []
    while cells(text) > size:
        end = fitting(text, size)
        breaks = [text.rfind(ch, 1, end) for ch in "<:-_. "]
        end = max(breaks) + 1 if max(breaks) > 0 else max(end, 1)
        pieces.append(text[:end])
        text = text[end:]
    return pieces + [text]


def _aligned(text: str, size: int, right: bool) -> str:
    padding = " " * (size - cells(text))
    return padding + text if right else text + padding


def _join(parts: list[tuple[str, str]], color: bool) -> str:
    spaced = []
    for i, part in enumerate(parts):
        if i:
            spaced.append(("", " " * GAP))
        spaced.append(part)
    return paint(spaced, color)


def packed(pairs: Sequence[tuple[str, Cell]], room: int, color: bool, indent: int = 4) -> list[str]:
    """`name value` pairs, as many to a line as fit in `room` columns; a pair is never split
    (one wider than the room gets lines of its own, its value folded at spaces under itself)."""
    lines, line, used = [], [], indent
    for name, value in pairs:
        style = "" if isinstance(value, str) else value[1]
        if indent + cells(name) + 1 + cells(text_of(value)) > room:
            if line:
                lines.append(" " * indent + paint(line, color))
                line, used = [], indent
            lines += _folded(name, text_of(value), style, room, color, indent)
            continue
        item = [("2", f"{name} "), (style, text_of(value))]
        size = cells(name) + 1 + cells(text_of(value))
        if line and used + 3 + size > room:
            lines.append(" " * indent + paint(line, color))
            line, used = [], indent
        if line:
            line.append(("", "   "))
            used += 3
        line += item
        used += size
    if line:
        lines.append(" " * indent + paint(line, color))
    return lines


def _folded(name: str, text: str, style: str, room: int, color: bool, indent: int) -> list[str]:
    """One `name value` pair wider than the room: the value folded at spaces, under its first line."""
    under = indent + cells(name) + 1
    pieces = textwrap.wrap(text, max(room - under, 16), break_on_hyphens=False) or [""]
    first = " " * indent + paint([("2", f"{name} "), (style, pieces[0])], color)
    return [first] + [" " * under + paint([(style, piece)], color) for piece in pieces[1:]]


def bands(count: int, size_of, room: int) -> list[range]:
    """Splits `count` columns into consecutive bands, each as wide as fits in `room`; `size_of(i)`
    is the columns that column i takes, its gap included. A band has at least one column."""
    result, start, used = [], 0, 0
    for i in range(count):
        size = size_of(i)
        if i > start and used + size > room:
            result.append(range(start, i))
            start, used = i, 0
        used += size
    if count:
        result.append(range(start, count))
    return result


def headed(records: list, body: list[list[str]], heading, color: bool) -> list[str]:
    """Each record's lines, with `heading(record)` before the first of each run of equal headings."""
    lines = []
    for i, (record, drawn) in enumerate(zip(records, body, strict=True)):
        if i == 0 or heading(record) != heading(records[i - 1]):
            lines.append(paint([("36", heading(record))], color))
        lines += drawn
    return lines
