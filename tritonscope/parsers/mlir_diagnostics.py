"""Reads the diagnostics MLIR prints to stderr (`MLIR_ENABLE_DIAGNOSTICS=remarks`): remarks and warnings.

    /path/k.py:12:9: remark: MMA version 3 acceleration not applied due to unsupported shapes or data types.
        c = tl.dot(a, b)
            ^
    /path/k.py:12:9: note: Target compute capability (90) supports MMA v3.

A diagnostic starts with its location (`file:line:col:`, or `loc(...)` when MLIR has no file
position to show), its severity and its message; MLIR then shows the source line with a caret
under the column, and may add notes (`note: called from` names the call site of inlined code).
A pass that runs twice says the same thing twice: each remark is kept once. Errors, and any
other line, are left in the text, for the compile error that quotes them and the notices.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .mlir_locations import LocationError, resolve_location

SourceLine = tuple[str, int]

_HEADER = re.compile(
    r"^(?P<where>.+?:\d{1,18}:\d{1,18}|loc\(.*\)): (?P<severity>remark|warning|error|note): (?P<text>.*)$"
)
_POSITION = re.compile(r"^(?P<file>.+):(?P<line>\d{1,18}):\d{1,18}$")
_CARET = re.compile(r"^\s*\^[~\s]*$")
KEPT = ("remark", "warning")  # what becomes a Remark; errors stay in the text


@dataclass(frozen=True)
class Remark:
    """One MLIR remark or warning: where (the op's location, then the call sites of inlined code), what."""

    severity: Literal["remark", "warning"]
    message: str
    locations: tuple[SourceLine, ...]  # the op's own line first, then the lines that called it
    notes: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return " ".join((self.message, *(n for n in self.notes if not n.startswith("called from"))))


def parse(text: str) -> tuple[tuple[Remark, ...], str]:
    """(the remarks and warnings, once each; the text without them, errors and anything else kept)."""
    remarks: dict[Remark, None] = {}  # in order, each once
    rest: list[str] = []
    last: Remark | None = None  # what a note that follows belongs to
    for header, body in _blocks(text.splitlines()):
        severity = header.group("severity") if header else None
        if severity == "note" and last is not None:
            remarks.pop(last, None)
            last = _with_note(last, header)
        elif severity in KEPT:
            last = Remark(severity, header.group("text").strip(), _where(header.group("where")))
        else:
            last = None
            rest += [header.string] if header else []
        if last is not None:
            remarks[last] = None
        rest += body if last is None else _not_quoted(body)
    return tuple(remarks), "\n".join(rest)


def _blocks(lines: list[str]):
    """(the header match or None, the lines up to the next header)."""
    header, body = None, []
    for line in lines:
        match = _HEADER.match(line)
        if match:
            if header is not None or body:
                yield header, body
            header, body = match, []
        else:
            body.append(line)
    if header is not None or body:
        yield header, body


def _not_quoted(body: list[str]) -> list[str]:
    """The lines after a diagnostic that are not its: all but blanks, the source line MLIR quotes and its caret."""
    quoted = {i - 1 for i, line in enumerate(body) if _CARET.match(line)}
    return [line for i, line in enumerate(body) if line.strip() and i not in quoted and not _CARET.match(line)]


def _with_note(remark: Remark, header: re.Match) -> Remark:
    note = header.group("text").strip()
    locations = remark.locations
    if note.startswith("called from"):
        locations = tuple(dict.fromkeys((*locations, *_where(header.group("where")))))
    return Remark(remark.severity, remark.message, locations, (*remark.notes, note))


def _where(text: str) -> tuple[SourceLine, ...]:
    position = _POSITION.match(text)
    if position and not text.startswith("loc("):
        return ((position.group("file"), int(position.group("line"))),)
    try:
        return resolve_location(text[4:-1])
    except LocationError:
        return ()
