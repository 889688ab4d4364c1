"""Reads Nsight Compute's source page as CSV: one row of counters per SASS instruction.

    ncu -k regex:NAME --launch-count 1 --section SourceCounters --csv --page source --print-source sass
    "Kernel Name","add_kernel",
    "Address","Source","Warp Stall Sampling (All Samples)",...,"Instructions Executed",...,"stall_long_sb",...
    "0x7f2cef7ae300","      LDC R1, c[0x0][0x28]","0","0","0","16",...

With `--print-source cuda,sass` the instructions come grouped under the source lines ncu's
line table gives them, one section per file:

    "File Path","/path/matmul.py"
    "Function Name","matmul_kernel"
    "Line No","Source","Address","Source","Warp Stall Sampling (All Samples)",...
    "35","accumulator = tl.dot(a, b, accumulator)","-","-","75",...      the line's sums
    "","","0x7f00af7b0410","      HGMMA.64x128x16.F32 R24, ...","5",...   its instructions
    "","","...","...","-",...                                               a gap in the addresses

Lines that are not CSV records (ncu's `==PROF==` lines, the program's own output) are
skipped. A value is a number (thousands separators allowed), None for `-` or nothing, or
else its text (`Global`, `Load`).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field

Value = int | float | str | None

_NUMBER = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$|^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$")
_PREDICATE = re.compile(r"^@!?U?P[T\d]+\s+")


@dataclass(frozen=True)
class Instruction:
    address: int
    sass: str  # as ncu prints it, without its indentation: `@!P0  LDG.E.128 R16, desc[UR4][R2.64]`
    counters: dict[str, Value]  # by ncu's column name
    file: str | None = None  # the source line ncu's line table gives it (--print-source cuda,sass only)
    line: int | None = None
    code: str | None = None  # that line's text, as ncu printed it

    @property
    def opcode(self) -> str:
        """The instruction's opcode with its modifiers (`LDG.E.128`), predicate removed."""
        words = _PREDICATE.sub("", self.sass).split()
        return words[0] if words else ""

    def number(self, column: str) -> float:
        value = self.counters.get(column)
        return value if isinstance(value, int | float) else 0


@dataclass(frozen=True)
class SourcePage:
    kernel: str | None  # "Kernel Name" (sass) or "Function Name" (cuda,sass)
    columns: tuple[str, ...]  # the counter columns, in ncu's order
    instructions: tuple[Instruction, ...] = field(default=())  # by address, each once

    @property
    def base(self) -> int:
        """The kernel's first address: instruction offsets in the binary count from it."""
        return min((i.address for i in self.instructions), default=0)


def value(text: str) -> Value:
    text = text.strip()
    if text in ("", "-", "n/a", "N/A"):
        return None
    if _NUMBER.match(text):
        number = float(text.replace(",", ""))
        return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
    return text


def parse(text: str) -> SourcePage:
    """The instructions of the first kernel on the page (ncu prints one with --launch-count 1)."""
    records = csv.reader(line for line in text.splitlines() if line.startswith('"'))
    kernel, columns, first, by_address = None, (), 0, {}
    file = line = code = None
    for record in records:
        head = record[0] if record else ""
        if head in ("Kernel Name", "Function Name") and len(record) > 1:
            if kernel is not None and record[1] != kernel:
                break  # a second kernel: only the first is read
            kernel = record[1]
        elif head == "File Path" and len(record) > 1:
            file = record[1]
        elif head in ("Address", "Line No"):
            first = 2 if head == "Address" else 4
            columns = tuple(record[first:])
        elif columns and first == 4 and head:
            line, code = _line_number(head), record[1]
        elif columns:
            found = _instruction(record[first - 2 :], columns, (file, line, code) if first == 4 else (None,) * 3)
            if found is not None:
                by_address.setdefault(found.address, found)
    return SourcePage(kernel, columns, tuple(by_address[a] for a in sorted(by_address)))


def _line_number(text: str) -> int | None:
    return int(text) if text.strip().isdigit() else None


def _instruction(record: list[str], columns: tuple[str, ...], where: tuple) -> Instruction | None:
    """A row `address, sass, counters...`; None for a gap row (`...`) or anything else."""
    if len(record) < 2 or not record[0].strip().lower().startswith("0x"):
        return None
    try:
        address = int(record[0].strip(), 16)
    except ValueError:
        return None
    counters = {name: value(cell) for name, cell in zip(columns, record[2:], strict=False)}
    return Instruction(address, record[1].strip(), counters, *where)
