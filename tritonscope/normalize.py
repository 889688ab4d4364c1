"""IR normalizers: small functions from a listing to a listing, shared by every view.

A listing is a list of (line number in the stage, text). Keeping the original numbers
lets a normalized view still point into the stage's file and the line map.
"""

from __future__ import annotations

import re

from .model import Stage
from .parsers import asm_loc, llvm_debug, mlir_locations, sass_lines

Listing = list[tuple[int, str]]


def listing(text: str) -> Listing:
    return list(enumerate(text.splitlines(), start=1))


def strip_locations(stage: Stage, lines: Listing) -> Listing:
    """Drops location noise: MLIR `loc(...)` and `#loc` aliases, LLVM `!dbg` and its metadata,
    `.loc`/`.file` directives and debug sections in PTX and AMDGCN, nvdisasm's `//## File` lines."""
    if stage in (Stage.TTIR, Stage.TTGIR):
        return [(n, mlir_locations.without_locations(t)) for n, t in lines if not mlir_locations.is_alias_definition(t)]
    if stage is Stage.LLIR:
        return [(n, llvm_debug.without_dbg(t)) for n, t in lines if not llvm_debug.is_debug_noise(t)]
    if stage in (Stage.PTX, Stage.AMDGCN):
        return _without_debug_sections([(n, t) for n, t in lines if not asm_loc.is_directive(t)])
    if stage is Stage.SASS:
        return [(n, t) for n, t in lines if not sass_lines.is_line_info(t)]
    return lines


def shown(stage: Stage, text: str, keep_loc: bool) -> Listing:
    """A stage as the views show it: numbered lines, location noise dropped unless asked to keep it."""
    lines = listing(text)
    return lines if keep_loc else strip_locations(stage, lines)


def comparable(stage: Stage, text: str) -> tuple[str, ...]:
    """A stage as diffs compare it: no locations, names canonical, no trailing blanks."""
    lines = strip_locations(stage, listing(text))
    return tuple(line.rstrip() for _, line in canonical_names(stage, lines))


def only(lines: Listing, wanted: set[int]) -> Listing:
    return [(n, t) for n, t in lines if n in wanted]


def _without_debug_sections(lines: Listing) -> Listing:
    kept, in_debug = [], False
    for number, text in lines:
        stripped = text.strip()
        if stripped.startswith(".section"):
            in_debug = ".debug" in stripped
        if not in_debug:
            kept.append((number, text))
    return kept


_MLIR_NAME = re.compile(r"%([A-Za-z_][\w$.]*?)(?:_\d+)?\b|%(\d+)\b")
_PTX_REGISTER = re.compile(r"%([a-z]+)(\d+)\b")
_ATTRIBUTE_ALIAS = re.compile(r"#([a-z_]+?)(\d*)\b(?![.<])")
_SASS_ADDRESS = re.compile(r"/\*[0-9a-fA-F]{4,}\*/\s*")
_SASS_LABEL = re.compile(r"\.L_x_\d+")


def canonical_names(stage: Stage, lines: Listing) -> Listing:
    """Renames SSA values, PTX registers and layout aliases in order of first appearance, so that
    two compilations with the same structure print the same names (`%offsets_7` -> `%offsets_1`)."""
    if stage in (Stage.TTIR, Stage.TTGIR, Stage.LLIR):
        rename = _Renamer()
        out = [(n, _MLIR_NAME.sub(rename.ssa, t)) for n, t in lines]
        if stage is not Stage.LLIR:
            aliases = _Renamer()
            out = [(n, _ATTRIBUTE_ALIAS.sub(aliases.alias, t)) for n, t in out]
        return out
    if stage is Stage.PTX:
        rename = _Renamer()
        return [(n, _PTX_REGISTER.sub(rename.register, t)) for n, t in lines]
    if stage is Stage.SASS:
        rename = _Renamer()
        return [(n, _SASS_LABEL.sub(rename.label, _SASS_ADDRESS.sub("", t))) for n, t in lines]
    return lines


class _Renamer:
    """Hands out names per base in order of first appearance."""

    def __init__(self):
        self.names: dict[str, str] = {}
        self.counts: dict[str, int] = {}

    def _name(self, token: str, base: str, fmt) -> str:
        if token not in self.names:
            index = self.counts.get(base, 0)
            self.counts[base] = index + 1
            self.names[token] = fmt(base, index)
        return self.names[token]

    def ssa(self, match: re.Match) -> str:
        token = match.group(0)
        if match.group(2) is not None:
            return self._name(token, "", lambda _, i: f"%{i}")
        return self._name(token, match.group(1), lambda b, i: f"%{b}" if i == 0 else f"%{b}_{i}")

    def register(self, match: re.Match) -> str:
        return self._name(match.group(0), match.group(1), lambda b, i: f"%{b}{i}")

    def alias(self, match: re.Match) -> str:
        if match.group(1) == "loc":
            return match.group(0)
        return self._name(match.group(0), match.group(1), lambda b, i: f"#{b}" if i == 0 else f"#{b}{i}")

    def label(self, match: re.Match) -> str:
        return self._name(match.group(0), "L", lambda _, i: f".L_x_{i}")
