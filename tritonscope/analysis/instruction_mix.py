"""Counts what a kernel's machine code does: memory traffic by kind and width, matrix ops, barriers.

Read from the SASS listing (NVIDIA) or the AMDGCN assembly (AMD). Widths are in bits per
thread: a `LDG.E.128` or `global_load_dwordx4` moves 128 bits, the widest vector access.
`classify` names each instruction with the line of the listing it is on, so the same
reading serves the whole kernel (`count`) and each Python line (analysis/cost.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..core.model import InstructionMix
from ..core.stages import Stage

_SASS_OPCODE = re.compile(r"^\s*/\*[0-9a-fA-F]+\*/\s+(?:@!?U?P(?:T|\d+)\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)")
_AMDGCN_OPCODE = re.compile(r"^\s+([a-z][a-z0-9_]*)(?:\s|$)")
_AMDGCN_KERNEL_LABEL = re.compile(r"^[A-Za-z_][\w$]*:")
_SASS_MATRIX = ("HMMA", "HGMMA", "IMMA", "IGMMA", "QGMMA", "BMMA", "BGMMA", "DMMA", "UTCHMMA", "UTCQMMA", "UTCIMMA")
_SASS_KINDS = {
    "LDG": "global_load",
    "STG": "global_store",
    "LDGSTS": "async_copy",
    "UTMALDG": "tma",
    "UBLKCP": "tma",
    "UTMASTG": "tma_store",
    "LDS": "shared_load",
    "LDSM": "shared_load",
    "STS": "shared_store",
    "STSM": "shared_store",
    "BAR": "barrier",
    "SYNCS": "barrier",
    "LDL": "local_load",
    "STL": "local_store",
    **{opcode: "matrix" for opcode in _SASS_MATRIX},
}
_WIDE = ("global_load", "global_store", "async_copy")  # the kinds whose width per thread is read
_AMD_WIDTHS = {
    "ubyte": 8,
    "sbyte": 8,
    "byte": 8,
    "ushort": 16,
    "sshort": 16,
    "short": 16,
    "dword": 32,
    "dwordx2": 64,
    "dwordx3": 96,
    "dwordx4": 128,
    "b32": 32,
    "b64": 64,
    "b96": 96,
    "b128": 128,
}


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
    return _classify_sass(text) if stage is Stage.SASS else _classify_amdgcn(text)


def tally(ops: Iterable[Op]) -> InstructionMix:
    """The instruction mix of some instructions (a kernel's, or one Python line's)."""
    counts: Counter[str] = Counter()
    loads: Counter[int] = Counter()
    stores: Counter[int] = Counter()
    for op in ops:
        counts[op.kind] += 1
        if op.kind == "global_load":
            loads[op.width] += 1
        elif op.kind == "global_store":
            stores[op.width] += 1
    return InstructionMix(
        total=sum(counts.values()),
        global_loads=dict(sorted(loads.items())),
        global_stores=dict(sorted(stores.items())),
        async_copies=counts["async_copy"] + counts["tma"],
        shared_loads=counts["shared_load"],
        shared_stores=counts["shared_store"],
        matrix=counts["matrix"],
        barriers=counts["barrier"],
        local_loads=counts["local_load"],
        local_stores=counts["local_store"],
    )


def _classify_sass(text: str) -> Iterator[tuple[int, Op]]:
    for number, line in enumerate(text.splitlines(), start=1):
        match = _SASS_OPCODE.match(line)
        if not match:
            continue
        opcode, modifiers = match.group(1), match.group(2).split(".")
        kind = _SASS_KINDS.get(opcode, "other")
        yield number, Op(kind, _sass_width(modifiers) if kind in _WIDE else 0, opcode + match.group(2))


def _sass_width(modifiers: list[str]) -> int:
    for modifier, width in (("128", 128), ("64", 64), ("U16", 16), ("S16", 16), ("U8", 8), ("S8", 8)):
        if modifier in modifiers:
            return width
    return 32


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
    kind, _, rest = opcode.partition("_")
    if kind in ("global", "buffer") and rest.startswith(("load", "store")):
        width = _AMD_WIDTHS.get(rest.split("_")[1] if "_" in rest else "", 32)
        return Op("global_load" if rest.startswith("load") else "global_store", width, opcode)
    if kind == "ds" and rest.startswith(("read", "load")):
        return Op("shared_load", 0, opcode)
    if kind == "ds" and rest.startswith(("write", "store")):
        return Op("shared_store", 0, opcode)
    if opcode.startswith(("v_mfma", "v_smfmac", "v_wmma")):
        return Op("matrix", 0, opcode)
    if opcode == "s_barrier":
        return Op("barrier", 0, opcode)
    if opcode.startswith("scratch_load"):
        return Op("local_load", 0, opcode)
    if opcode.startswith("scratch_store"):
        return Op("local_store", 0, opcode)
    return Op("other", 0, opcode)
