"""Nsight Compute's counters per SASS instruction (parsers/ncu_source.py), summed per Python line.

An instruction is put on Python lines through tritonscope's line map of the binary that ran
(the same map `explain` uses: inlined helpers count for their call sites too, and matrix
instructions go back to their `tl.dot` line), once its instructions are checked to be those
ncu measured, offset by offset. Without that binary, or where it differs, ncu's own line
table is used (`--print-source cuda,sass`): one line per instruction, the innermost.

Figures per line: warp-level instructions executed, warp-stall samples (all, and those taken
while no instruction issued) by stall reason, and per kind of memory access (address space,
operation, bits per thread) the instructions executed and the L2 sectors (global) or shared
wavefronts they needed, beside the ideal count for that access size.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..core.model import Compilation
from ..core.stages import Stage
from ..parsers.ncu_source import Instruction, SourcePage
from . import cost

SAMPLES = "Warp Stall Sampling (All Samples)"
NOT_ISSUED = "Warp Stall Sampling (Not-issued Samples)"
EXECUTED = "Instructions Executed"
THREAD_EXECUTED = "Thread Instructions Executed"
LINE_MAP, NCU = "line map", "ncu line table"

_OFFSET = re.compile(r"^\s*/\*([0-9a-fA-F]+)\*/")
_TRAFFIC = {  # address space -> (what ncu counts, its ideal)
    "Global": ("L2 Theoretical Sectors Global", "L2 Theoretical Sectors Global Ideal"),
    "Shared": ("L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal"),
}


@dataclass(frozen=True)
class Access:
    """The memory instructions of one kind on a line: `Global` `Load` 128 bits per thread."""

    space: str  # ncu's Address Space: Global, Shared, Local, `Global,Shared` (LDGSTS)
    operation: str  # Load, Store, Atomic, `Load,Store`
    bits: int | None  # per thread
    instructions: int
    executed: int
    requests: int  # L2 sectors (global) or shared wavefronts it took
    ideal: int  # what that many accesses of this size need at best


@dataclass(frozen=True)
class MeasuredLine:
    line: int
    code: str
    executed: int  # warp-level instructions executed
    thread_executed: int
    samples: int  # warp-stall samples taken on its instructions
    samples_not_issued: int
    stalls: tuple[tuple[str, int], ...]  # (reason, samples), most first: ncu's stall_* name without `stall_`
    accesses: tuple[Access, ...] = ()


@dataclass(frozen=True)
class Measured:
    lines: tuple[MeasuredLine, ...]  # each kernel-file line with an instruction, in line order
    mapped_by: str  # LINE_MAP or NCU
    samples: int  # the whole kernel's: every instruction once
    samples_not_issued: int
    executed: int
    stalls: tuple[tuple[str, int], ...]
    unattributed_samples: int = 0  # on instructions of no line of the kernel's file

    @property
    def hottest(self) -> MeasuredLine | None:
        """The line with the most warp-stall samples (then the most instructions executed)."""
        return max(self.lines, key=lambda m: (m.samples, m.executed), default=None)


def measure(page: SourcePage, c: Compilation | None, kernel_file: str, texts: dict[int, str]) -> Measured:
    """The page's counters per line of `kernel_file`; `c` is the binary that ran, where read."""
    lines = lines_by_address(page, c) if c is not None else None
    mapped_by = LINE_MAP if lines is not None else NCU
    if lines is None:
        lines = ncu_lines(page, kernel_file)
    per_line: dict[int, list[Instruction]] = {}
    for instruction in page.instructions:
        for line in lines.get(instruction.address, ()):
            per_line.setdefault(line, []).append(instruction)
    codes = {i.line: i.code for i in page.instructions if i.line is not None and i.code}
    measured = tuple(_line(n, texts.get(n) or codes.get(n, ""), per_line[n]) for n in sorted(per_line))
    every = page.instructions
    return Measured(
        measured,
        mapped_by,
        samples=_sum(every, SAMPLES),
        samples_not_issued=_sum(every, NOT_ISSUED),
        executed=_sum(every, EXECUTED),
        stalls=stall_reasons(every),
        unattributed_samples=_sum([i for i in every if not lines.get(i.address)], SAMPLES),
    )


def lines_by_address(page: SourcePage, c: Compilation) -> dict[int, list[int]] | None:
    """Kernel-file lines by instruction address, through the line map of `c`; None when `c`'s
    machine code is not what ncu measured (a mnemonic differs at some offset, or is missing)."""
    if Stage.SASS not in c.stages or not page.instructions:
        return None
    offsets = {}
    listing = c.stages[Stage.SASS].splitlines()
    for number, op, lines in cost.machine_listing(c, Stage.SASS):
        match = _OFFSET.match(listing[number - 1])
        if match:
            offsets[int(match.group(1), 16)] = (op.opcode.split(".")[0], lines)
    found = {}
    for instruction in page.instructions:
        opcode, lines = offsets.get(instruction.address - page.base, (None, []))
        if opcode != instruction.opcode.split(".")[0]:
            return None
        found[instruction.address] = lines
    return found


def ncu_lines(page: SourcePage, kernel_file: str) -> dict[int, list[int]]:
    """Kernel-file lines by instruction address, as ncu's line table gives them (cuda,sass pages)."""
    return {i.address: [i.line] for i in page.instructions if i.line and same_file(i.file, kernel_file)}


def same_file(a: str | None, b: str) -> bool:
    if not a:
        return False
    if a == b:
        return True
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def stall_reasons(instructions: list[Instruction] | tuple[Instruction, ...]) -> tuple[tuple[str, int], ...]:
    counts: Counter[str] = Counter()
    for instruction in instructions:
        for column, cell in instruction.counters.items():
            if column.startswith("stall_") and "(Not Issued)" not in column and isinstance(cell, int) and cell:
                counts[column.removeprefix("stall_")] += cell
    return tuple(counts.most_common())


def _sum(instructions, column: str) -> int:
    return int(sum(i.number(column) for i in instructions))


def _line(number: int, code: str, instructions: list[Instruction]) -> MeasuredLine:
    return MeasuredLine(
        line=number,
        code=code,
        executed=_sum(instructions, EXECUTED),
        thread_executed=_sum(instructions, THREAD_EXECUTED),
        samples=_sum(instructions, SAMPLES),
        samples_not_issued=_sum(instructions, NOT_ISSUED),
        stalls=stall_reasons(instructions),
        accesses=_accesses(instructions),
    )


def _accesses(instructions: list[Instruction]) -> tuple[Access, ...]:
    groups: dict[tuple, list[Instruction]] = {}
    for i in instructions:
        space, operation = i.counters.get("Address Space"), i.counters.get("Access Operation")
        if isinstance(space, str) and isinstance(operation, str):
            bits = i.counters.get("Access Size")
            groups.setdefault((space, operation, bits if isinstance(bits, int) else None), []).append(i)
    found = []
    for (space, operation, bits), group in groups.items():
        requests, ideal = _TRAFFIC.get(space.split(",")[0], ("", ""))
        found.append(
            Access(space, operation, bits, len(group), _sum(group, EXECUTED), _sum(group, requests), _sum(group, ideal))
        )
    return tuple(sorted(found, key=lambda a: (a.space, a.operation, -(a.bits or 0))))


def file_lines(c: Compilation | None) -> dict[int, str]:
    """The kernel file's lines by number, where they can be read."""
    return cost.source_texts(c) if c is not None else {}
