"""Reads the instructions of nvdisasm's SASS listing: offset, predicate, opcode, operands, branch
target, and the labels branches name (parsers/sass_lines.py reads the line-information comments
of the same listing).

    .L_x_1:
            /*0160*/              @P0 BRA `(.L_x_3) ;
            /*0170*/                  LDG.E.128 R16, desc[UR4][R2.64] ;
            /*0180*/                  DEPBAR.LE SB0, 0x2 ;
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A modifier may hold lower case: a warp-group matrix instruction's shape (HGMMA.64x256x16.F32).
_INSTRUCTION = re.compile(
    r"^\s*/\*([0-9a-fA-F]{1,8})\*/\s+(?:(@!?U?P(?:T|\d))\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*([^;]*);"
)
_LABEL = re.compile(r"^([.$\w][\w.$]*):\s*$")
_TARGET = re.compile(r"`\(([^)]+)\)")
# What nvdisasm prints after the operands for sm120: the control fields (&req={0,2} &wr=0x1
# ?trans4 ?WAIT4_END_GROUP), read from the instruction words instead (parsers/sass_control.py).
CONTROL_FIELDS = re.compile(r"(?:^|\s+)[&?][^\s;]+")  # the first may open the text (`LDGDEPBAR &wr=0x0 ;`)
_BRACES = re.compile(r"[{}()]")


@dataclass(frozen=True)
class Instruction:
    offset: int  # bytes from the kernel's start, as /*0170*/ says
    listing_line: int  # 1-based, in the listing
    predicate: str  # `@P0`, `@!PT`, or ""
    opcode: str  # with its modifiers: LDG.E.128
    operands: tuple[str, ...]  # as printed, split at the top-level commas
    target: str | None = None  # the label a branch or call names
    base: str = ""  # the opcode without modifiers: LDG

    def __post_init__(self) -> None:
        object.__setattr__(self, "base", self.opcode.split(".")[0])


@dataclass(frozen=True)
class Listing:
    instructions: tuple[Instruction, ...]  # in offset order
    labels: dict[str, int]  # label -> the offset of the instruction it precedes


def parse(text: str) -> Listing:
    """The instructions of the listing's first kernel section, and its labels."""
    found: list[Instruction] = []
    labels: dict[str, int] = {}
    waiting: list[str] = []  # labels seen before their instruction
    for number, line in enumerate(text.splitlines(), start=1):
        match = _INSTRUCTION.match(line)
        if match:
            offset = int(match.group(1), 16)
            if found and offset <= found[-1].offset:
                break  # a second kernel's code: its offsets start again
            labels.update(dict.fromkeys(waiting, offset))
            waiting = []
            rest = match.group(4)  # the operands, and for sm120 the control fields after them
            operands = tuple(_operands(CONTROL_FIELDS.sub("", rest) if "&" in rest or "?" in rest else rest))
            target = _TARGET.search(rest) if "`" in rest else None
            found.append(
                Instruction(
                    offset, number, match.group(2) or "", match.group(3), operands, target.group(1) if target else None
                )
            )
            continue
        label = _LABEL.match(line.strip())
        if label:
            waiting.append(label.group(1))
    return Listing(tuple(found), labels)


def _operands(text: str) -> list[str]:
    """Split at commas outside brackets and braces: `desc[UR4][R2.64+0x800], R12` (a piece between
    commas whose brackets are not yet closed is joined to the next: every listing line passes here)."""
    if not text.strip():
        return []
    pieces = text.split(",")
    if not _BRACES.search(text) and all(piece.count("[") == piece.count("]") for piece in pieces):
        return [piece.strip() for piece in pieces]  # the usual line: each comma splits
    parts: list[str] = []
    current: str | None = None
    depth = 0
    for piece in pieces:
        current = piece if current is None else f"{current},{piece}"
        depth += sum(map(piece.count, "[{(")) - sum(map(piece.count, "]})"))
        if depth == 0:
            parts.append(current.strip())
            current = None
    return parts if current is None else [*parts, current.strip()]
