"""The stage registry: everything tritonscope knows about one compiler stage, in one entry.

A stage is a text Triton produces on the way from Python to machine code. Its entry says
how to name it, save it, highlight it, read its location records (the source-line map),
drop its location noise and canonicalize its names (for diffs). Adding a stage is one
entry here plus its location parser in parsers/; every view, diff and file picks it up.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from ..parsers import asm_loc, llvm_debug, mlir_locations, sass_lines

Listing = list[tuple[int, str]]  # (line number in the stage, text)
SourceLine = tuple[str, int]  # (python file, line)
StageMap = dict[int, tuple[SourceLine, ...]]  # stage line -> the Python lines it came from


class Stage(str, Enum):
    """A compiler stage, in pipeline order."""

    SOURCE = "source"
    TTIR = "ttir"
    GLIR = "glir"  # a Gluon kernel's own IR, before Triton's passes (Triton 3.9 on)
    TTGIR = "ttgir"
    LLIR = "llir"
    PTX = "ptx"
    SASS = "sass"
    AMDGCN = "amdgcn"

    @property
    def info(self) -> StageInfo:
        return STAGES[self]

    @property
    def title(self) -> str:
        return STAGES[self].title

    @property
    def extension(self) -> str:
        return STAGES[self].extension

    @property
    def lexer(self) -> str:
        return STAGES[self].lexer


class Language(str, Enum):
    """What a kernel is written in: it decides the stages before TTGIR."""

    TRITON = "triton"  # @triton.jit: Python -> TTIR -> TTGIR (the compiler picks the layouts)
    GLUON = "gluon"  # @gluon.jit: Python -> (GLIR, 3.9 on) -> TTGIR (the author wrote the layouts)

    @property
    def decorator(self) -> str:
        return "@gluon.jit" if self is Language.GLUON else "@triton.jit"


# The stages a language never has: a Gluon kernel is built straight into TTGIR's dialect, so it has
# no TTIR (Triton 3.9 keeps that first module as GLIR); a Triton kernel has no GLIR.
NOT_PRODUCED: dict[Language, frozenset] = {
    Language.TRITON: frozenset({"glir"}),
    Language.GLUON: frozenset({"ttir"}),
}


def _keep(lines: Listing) -> Listing:
    return lines


@dataclass(frozen=True)
class StageInfo:
    title: str
    extension: str  # of the file `dump -o` writes
    lexer: str  # the Pygments alias that highlights it
    locations: Callable[[str], StageMap] | None  # its location-record parser; None for the source
    strip: Callable[[Listing], Listing] = _keep  # drops location noise
    rename: Callable[[Listing], Listing] = _keep  # canonical names, so diffs show structure only
    # A stage whose lines also point at lines of an earlier stage: (that stage, the parser of the
    # pointers). Its line map takes in that stage's sources too (the call sites of inlined code).
    through: tuple[Stage, Callable[[str], dict[int, int]]] | None = None


# --- location noise ---------------------------------------------------------------------------


def _strip_mlir(lines: Listing) -> Listing:
    keep = mlir_locations.is_alias_definition
    return [(n, mlir_locations.without_locations(t)) for n, t in lines if not keep(t)]


def _strip_llvm(lines: Listing) -> Listing:
    return [(n, llvm_debug.without_dbg(t)) for n, t in lines if not llvm_debug.is_debug_noise(t)]


def _strip_asm(lines: Listing) -> Listing:
    """Drops `.loc`/`.file` directives and whole debug sections (PTX, AMDGCN)."""
    kept, in_debug = [], False
    for number, text in lines:
        if asm_loc.is_directive(text):
            continue
        stripped = text.strip()
        if stripped.startswith(".section"):
            in_debug = ".debug" in stripped
        if not in_debug:
            kept.append((number, text))
    return kept


def _strip_sass(lines: Listing) -> Listing:
    return [(n, t) for n, t in lines if not sass_lines.is_line_info(t)]


# --- canonical names ------------------------------------------------------------------------------

_MLIR_NAME = re.compile(r"%([A-Za-z_][\w$.]*?)(?:_\d+)?\b|%(\d+)\b")
_PTX_REGISTER = re.compile(r"%([a-z]+)(\d+)\b")
_ATTRIBUTE_ALIAS = re.compile(r"#([a-z_]+?)(\d*)\b(?![.<])")
_SASS_ADDRESS = re.compile(r"/\*[0-9a-fA-F]{4,}\*/\s*")
_SASS_LABEL = re.compile(r"\.L_x_\d+")


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


def _rename_llvm(lines: Listing) -> Listing:
    """SSA values in order of first appearance (`%offsets_7` -> `%offsets_1`)."""
    rename = _Renamer()
    return [(n, _MLIR_NAME.sub(rename.ssa, t)) for n, t in lines]


def _rename_mlir(lines: Listing) -> Listing:
    """SSA values, then layout aliases (`#blocked3` -> `#blocked1`)."""
    aliases = _Renamer()
    return [(n, _ATTRIBUTE_ALIAS.sub(aliases.alias, t)) for n, t in _rename_llvm(lines)]


def _rename_ptx(lines: Listing) -> Listing:
    rename = _Renamer()
    return [(n, _PTX_REGISTER.sub(rename.register, t)) for n, t in lines]


def _rename_sass(lines: Listing) -> Listing:
    """No addresses, branch labels in order of first appearance."""
    rename = _Renamer()
    return [(n, _SASS_LABEL.sub(rename.label, _SASS_ADDRESS.sub("", t))) for n, t in lines]


STAGES: dict[Stage, StageInfo] = {
    Stage.SOURCE: StageInfo("Python source", ".py", "python", None),
    Stage.TTIR: StageInfo("TTIR (Triton IR)", ".ttir", "ttir", mlir_locations.parse, _strip_mlir, _rename_mlir),
    Stage.GLIR: StageInfo("GLIR (Gluon IR)", ".glir", "ttgir", mlir_locations.parse, _strip_mlir, _rename_mlir),
    Stage.TTGIR: StageInfo("TTGIR (Triton GPU IR)", ".ttgir", "ttgir", mlir_locations.parse, _strip_mlir, _rename_mlir),
    Stage.LLIR: StageInfo("LLVM IR", ".ll", "llvm", llvm_debug.parse, _strip_llvm, _rename_llvm),
    Stage.PTX: StageInfo("PTX", ".ptx", "ptx", asm_loc.parse_ptx, _strip_asm, _rename_ptx),
    # Pygments' own "sass" is the CSS language.
    Stage.SASS: StageInfo(
        "SASS", ".sass", "nvsass", sass_lines.parse, _strip_sass, _rename_sass, (Stage.PTX, sass_lines.ptx_lines)
    ),
    Stage.AMDGCN: StageInfo("AMDGCN", ".amdgcn", "amdgcn", asm_loc.parse_amdgcn, _strip_asm),
}
