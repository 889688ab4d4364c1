"""Counts what a kernel's machine code does: memory traffic by kind and width, matrix ops, barriers.

Read from the SASS listing (NVIDIA) or the AMDGCN assembly (AMD). Widths are in bits per
thread: a `LDG.E.128` or `global_load_dwordx4` moves 128 bits, the widest vector access.
`classify` names each instruction with the line of the listing it is on, so the same
reading serves the whole kernel (`count`) and each Python line (analysis/cost.py). Which opcode
is which kind, and how wide: the one table of opcodes (analysis/opcodes.py).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..core.model import InstructionMix
from ..core.stages import Stage
from . import opcodes

_SASS_OPCODE = re.compile(r"^\s*/\*[0-9a-fA-F]+\*/\s+(?:@!?U?P(?:T|\d+)\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)")
_AMDGCN_OPCODE = re.compile(r"^\s+([a-z][a-z0-9_]*)(?:\s|$)")
_AMDGCN_KERNEL_LABEL = re.compile(r"^[A-Za-z_][\w$]*:")
_WIDE = (opcodes.GLOBAL_LOAD, opcodes.GLOBAL_STORE, opcodes.ASYNC_COPY)  # the kinds whose width is read


@dataclass(frozen=True)
class Op:
    """One machine instruction as the figures see it: its kind (`other` for the rest) and, for
    global loads, stores and asynchronous copies, the bits each thread moves."""

    kind: str
    width: int = 0
    opcode: str = ""  # with its modifiers: LDG.E.128, WARPGROUP.ARRIVE


def count(stage: Stage, text: str) -> InstructionMix:
    return tally(op for _, op in classify(stage, text))


def classify(stage: Stage, text: str) -> Iterator[tuple[int, Op]]:
    """(line of the listing, 1-based; the instruction) for every instruction of the machine code."""
    return iter(_classified(stage, text))


@functools.lru_cache(maxsize=8)  # a compile's listing is read for its figures and again for its schedule
def _classified(stage: Stage, text: str) -> tuple[tuple[int, Op], ...]:
    return tuple(_classify_sass(text) if stage is Stage.SASS else _classify_amdgcn(text))


def tally(ops: Iterable[Op]) -> InstructionMix:
    """The instruction mix of some instructions (a kernel's, or one Python line's)."""
    counts: Counter[str] = Counter()
    loads: Counter[int] = Counter()
    stores: Counter[int] = Counter()
    for op in ops:
        counts[op.kind] += 1
        if op.kind == opcodes.GLOBAL_LOAD:
            loads[op.width] += 1
        elif op.kind == opcodes.GLOBAL_STORE:
            stores[op.width] += 1
    return InstructionMix(
        total=sum(counts.values()),
        global_loads=dict(sorted(loads.items())),
        global_stores=dict(sorted(stores.items())),
        async_copies=counts[opcodes.ASYNC_COPY] + counts[opcodes.TMA],
        shared_loads=counts[opcodes.SHARED_LOAD],
        shared_stores=counts[opcodes.SHARED_STORE],
        matrix=counts[opcodes.MATRIX],
        barriers=counts[opcodes.BARRIER],
        local_loads=counts[opcodes.LOCAL_LOAD],
        local_stores=counts[opcodes.LOCAL_STORE],
        atomics=counts[opcodes.ATOMIC],
    )


def _classify_sass(text: str) -> Iterator[tuple[int, Op]]:
    for number, line in enumerate(text.splitlines(), start=1):
        match = _SASS_OPCODE.match(line)
        if not match:
            continue
        opcode = match.group(1) + match.group(2)
        kind = opcodes.sass(opcode).mix
        yield number, Op(kind, opcodes.access_bits(opcode) if kind in _WIDE else 0, opcode)


def _classify_amdgcn(text: str) -> Iterator[tuple[int, Op]]:
    in_code = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if _AMDGCN_KERNEL_LABEL.match(line):
            in_code = True  # the kernel's label: its code follows
        if stripped.startswith(".Lfunc_end") or stripped.startswith(".section"):
            in_code = False
        match = _AMDGCN_OPCODE.match(line)
        if in_code and match:
            yield number, _amdgcn_op(match.group(1))


def _amdgcn_op(opcode: str) -> Op:
    kind = opcodes.amdgcn_kind(opcode)
    return Op(kind, opcodes.amdgcn_bits(opcode) if kind in _WIDE else 0, opcode)
