"""Reads LLVM IR debug locations: `!dbg !12` on an instruction, resolved through metadata.

    !12 = !DILocation(line: 9, column: 43, scope: !13, inlinedAt: !14)
    !13 = distinct !DISubprogram(name: "helper", scope: !1, file: !1, line: 8, ...)
    !1 = !DIFile(filename: "k.py", directory: "/path")

An inlined location maps to the helper's line and, through inlinedAt, to each call site.
"""

from __future__ import annotations

import os
import re

SourceLine = tuple[str, int]

_METADATA = re.compile(r"^(![\w.]+)\s*=\s*(?:distinct\s+)?!(\w+)\((.*)\)\s*$")
_FIELD = re.compile(r'(\w+):\s*("(?:\\.|[^"\\])*"|![\w.]+|-?\d+)')
_DBG = re.compile(r"!dbg\s+(![\w.]+)")


def parse(text: str) -> dict[int, tuple[SourceLine, ...]]:
    lines = text.splitlines()
    nodes: dict[str, tuple[str, dict[str, str]]] = {}
    for line in lines:
        match = _METADATA.match(line.strip())
        if match:
            nodes[match.group(1)] = (match.group(2), dict(_FIELD.findall(match.group(3))))
    result: dict[int, tuple[SourceLine, ...]] = {}
    memo: dict[str, tuple[SourceLine, ...]] = {}
    for number, line in enumerate(lines, start=1):
        if line.startswith("!"):
            continue
        match = _DBG.search(line)
        if match:
            found = _location(match.group(1), nodes, memo, depth=0)
            if found:
                result[number] = found
    return result


def is_debug_noise(line: str) -> bool:
    """Debug metadata definitions (`!12 = !DILocation(...)`): location noise in a listing."""
    match = _METADATA.match(line.strip())
    return bool(match and match.group(2).startswith("DI"))


def without_dbg(line: str) -> str:
    return re.sub(r",\s*!dbg\s+![\w.]+", "", line)


def _location(ref: str, nodes, memo, depth: int) -> tuple[SourceLine, ...]:
    if ref in memo:
        return memo[ref]
    if depth > 64 or ref not in nodes or nodes[ref][0] != "DILocation":
        return ()
    fields = nodes[ref][1]
    found: list[SourceLine] = []
    line = int(fields.get("line", "0"))
    path = _file_of(fields.get("scope"), nodes, depth=0)
    if line > 0 and path:
        found.append((path, line))
    if "inlinedAt" in fields:
        found += _location(fields["inlinedAt"], nodes, memo, depth + 1)
    memo[ref] = tuple(dict.fromkeys(found))
    return memo[ref]


def _file_of(scope: str | None, nodes, depth: int) -> str | None:
    if scope is None or scope not in nodes or depth > 64:
        return None
    kind, fields = nodes[scope]
    if kind == "DIFile":
        name = fields.get("filename", '""')[1:-1]
        directory = fields.get("directory", '""')[1:-1]
        return os.path.join(directory, name) if directory and not os.path.isabs(name) else name
    if "file" in fields:
        return _file_of(fields["file"], nodes, depth + 1)
    return _file_of(fields.get("scope"), nodes, depth + 1)
