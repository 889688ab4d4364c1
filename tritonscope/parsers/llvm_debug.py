"""Reads LLVM IR debug locations: `!dbg !12` on an instruction, resolved through metadata.

    !12 = !DILocation(line: 9, column: 43, scope: !13, inlinedAt: !14)
    !13 = distinct !DISubprogram(name: "helper", scope: !1, file: !1, line: 8, ...)
    !1 = !DIFile(filename: "k.py", directory: "/path")

An inlined location maps to the helper's line and, through inlinedAt, to each call site.
Chains are followed in loops, at most MAX_HOPS links (real ones are a few deep), never by recursion.
"""

from __future__ import annotations

import os
import re

from .asm_loc import unescaped_hex

SourceLine = tuple[str, int]

_METADATA = re.compile(r"^(![\w.]+)\s*=\s*(?:distinct\s+)?!(\w+)\((.*)\)\s*$")
_FIELD = re.compile(r'(?<!\w)(\w+):\s*("(?:\\.|[^"\\])*"|![\w.]+|-?\d+)')  # (?<!\w): tried once per word
_DBG = re.compile(r"!dbg\s+(![\w.]+)")
_LINE = re.compile(r"-?\d{1,18}")
MAX_HOPS = 64


def parse(text: str) -> dict[int, tuple[SourceLine, ...]]:
    lines = text.splitlines()
    nodes: dict[str, tuple[str, dict[str, str]]] = {}
    for line in lines:
        match = _METADATA.match(line.strip())
        if match:
            nodes[match.group(1)] = (match.group(2), dict(_FIELD.findall(match.group(3))))
    result: dict[int, tuple[SourceLine, ...]] = {}
    memo: dict[str, tuple[SourceLine, ...]] = {}
    files: dict[str, str | None] = {}
    for number, line in enumerate(lines, start=1):
        if line.startswith("!"):
            continue
        match = _DBG.search(line)
        if match:
            found = _location(match.group(1), nodes, memo, files)
            if found:
                result[number] = found
    return result


def is_debug_noise(line: str) -> bool:
    """Debug metadata definitions (`!12 = !DILocation(...)`): location noise in a listing."""
    match = _METADATA.match(line.strip())
    return bool(match and match.group(2).startswith("DI"))


def without_dbg(line: str) -> str:
    return re.sub(r",\s*!dbg\s+![\w.]+", "", line)


def _location(ref: str, nodes, memo, files) -> tuple[SourceLine, ...]:
    """The line of a DILocation, then those of its inlinedAt chain."""
    if ref not in memo:
        found: list[SourceLine] = []
        seen: set[str] = set()
        current = ref
        while current in nodes and nodes[current][0] == "DILocation" and current not in seen and len(seen) <= MAX_HOPS:
            seen.add(current)
            fields = nodes[current][1]
            line = _line(fields.get("line", "0"))
            path = _file_of(fields.get("scope"), nodes, files)
            if line > 0 and path:
                found.append((path, line))
            current = fields.get("inlinedAt")
        memo[ref] = tuple(dict.fromkeys(found))
    return memo[ref]


def _file_of(scope: str | None, nodes, files) -> str | None:
    """The file of a scope: a DIFile, or the `file:` (else the `scope:`) of each enclosing scope."""
    if scope not in files:
        path, current = None, scope
        for _ in range(MAX_HOPS + 1):
            if current is None or current not in nodes:
                break
            kind, fields = nodes[current]
            if kind == "DIFile":
                name = fields.get("filename", '""')[1:-1]
                directory = fields.get("directory", '""')[1:-1]
                name, directory = unescaped_hex(name), unescaped_hex(directory)
                path = os.path.join(directory, name) if directory and not os.path.isabs(name) else name
                break
            current = fields.get("file", fields.get("scope"))
        files[scope] = path
    return files[scope]


def _line(text: str) -> int:
    """A line number; 0 for what is not one (a reference, or more digits than a line has)."""
    return int(text) if _LINE.fullmatch(text) else 0
