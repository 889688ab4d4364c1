"""IR normalizers: small functions from a listing to a listing, shared by every view.

A listing is a list of (line number in the stage, text). Keeping the original numbers
lets a normalized view still point into the stage's file and the line map.
"""

from __future__ import annotations

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
