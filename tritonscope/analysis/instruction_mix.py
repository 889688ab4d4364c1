"""Counts what a kernel's machine code does: memory traffic by kind and width, matrix ops, barriers.

Read from the SASS listing (NVIDIA) or the AMDGCN assembly (AMD). Widths are in bits per
thread: a `LDG.E.128` or `global_load_dwordx4` moves 128 bits, the widest vector access.
"""

from __future__ import annotations

import re
from collections import Counter

from ..core.model import InstructionMix
from ..core.stages import Stage

_SASS_OPCODE = re.compile(r"^\s*/\*[0-9a-fA-F]+\*/\s+(?:@!?U?P(?:T|\d+)\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)")
_AMDGCN_OPCODE = re.compile(r"^\s+([a-z][a-z0-9_]*)(?:\s|$)")
_AMDGCN_KERNEL_LABEL = re.compile(r"^[A-Za-z_][\w$]*:")
_SASS_MATRIX = ("HMMA", "HGMMA", "IMMA", "IGMMA", "QGMMA", "BMMA", "BGMMA", "DMMA", "UTCHMMA", "UTCQMMA", "UTCIMMA")
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


def count(stage: Stage, text: str) -> InstructionMix:
    return _count_sass(text) if stage is Stage.SASS else _count_amdgcn(text)


def _count_sass(text: str) -> InstructionMix:
    mix = _Counts()
    for line in text.splitlines():
        match = _SASS_OPCODE.match(line)
        if not match:
            continue
        opcode, modifiers = match.group(1), match.group(2).split(".")
        mix.total += 1
        if opcode == "LDG":
            mix.global_loads[_sass_width(modifiers)] += 1
        elif opcode == "STG":
            mix.global_stores[_sass_width(modifiers)] += 1
        elif opcode in ("LDGSTS", "UTMALDG", "UBLKCP"):
            mix.async_copies += 1
        elif opcode in ("LDS", "LDSM"):
            mix.shared_loads += 1
        elif opcode in ("STS", "STSM"):
            mix.shared_stores += 1
        elif opcode in _SASS_MATRIX:
            mix.matrix += 1
        elif opcode in ("BAR", "SYNCS"):
            mix.barriers += 1
        elif opcode == "LDL":
            mix.local_loads += 1
        elif opcode == "STL":
            mix.local_stores += 1
    return mix.freeze()


def _sass_width(modifiers: list[str]) -> int:
    for modifier, width in (("128", 128), ("64", 64), ("U16", 16), ("S16", 16), ("U8", 8), ("S8", 8)):
        if modifier in modifiers:
            return width
    return 32


def _count_amdgcn(text: str) -> InstructionMix:
    mix = _Counts()
    in_code = False
    for line in text.splitlines():
        stripped = line.strip()
        if _AMDGCN_KERNEL_LABEL.match(line):
            in_code = True  # the kernel's label: its code follows
        if stripped.startswith(".Lfunc_end") or stripped.startswith(".section"):
            in_code = False
        match = _AMDGCN_OPCODE.match(line)
        if not (in_code and match):
            continue
        opcode = match.group(1)
        mix.total += 1
        kind, _, rest = opcode.partition("_")
        if kind in ("global", "buffer") and rest.startswith("load"):
            mix.global_loads[_AMD_WIDTHS.get(rest.split("_")[1] if "_" in rest else "", 32)] += 1
        elif kind in ("global", "buffer") and rest.startswith("store"):
            mix.global_stores[_AMD_WIDTHS.get(rest.split("_")[1] if "_" in rest else "", 32)] += 1
        elif kind == "ds" and rest.startswith(("read", "load")):
            mix.shared_loads += 1
        elif kind == "ds" and rest.startswith(("write", "store")):
            mix.shared_stores += 1
        elif opcode.startswith(("v_mfma", "v_smfmac", "v_wmma")):
            mix.matrix += 1
        elif opcode == "s_barrier":
            mix.barriers += 1
        elif opcode.startswith("scratch_load"):
            mix.local_loads += 1
        elif opcode.startswith("scratch_store"):
            mix.local_stores += 1
    return mix.freeze()


class _Counts:
    def __init__(self):
        self.total = self.async_copies = self.shared_loads = self.shared_stores = 0
        self.matrix = self.barriers = self.local_loads = self.local_stores = 0
        self.global_loads: Counter[int] = Counter()
        self.global_stores: Counter[int] = Counter()

    def freeze(self) -> InstructionMix:
        return InstructionMix(
            total=self.total,
            global_loads=dict(sorted(self.global_loads.items())),
            global_stores=dict(sorted(self.global_stores.items())),
            async_copies=self.async_copies,
            shared_loads=self.shared_loads,
            shared_stores=self.shared_stores,
            matrix=self.matrix,
            barriers=self.barriers,
            local_loads=self.local_loads,
            local_stores=self.local_stores,
        )
