"""Every machine instruction the figures tell apart, in one table: each SASS opcode's class (what
does its work), how the instruction mix counts it, what a wait on its result waits for, whether it
takes the L1's bandwidth, and the AMDGCN opcodes' kinds beside.

instruction_mix.py counts by the `mix` column; latencies.py reads the widths and the L1 path;
warp_timeline.py a result's latency (`Result`, whose figures are latencies.Costs' by target), the
stores drained at exit and where a barrier's wait lands; line_time.py the cycles an instruction
holds its pipe (by class) and the global loads that can be throttled. A new opcode is one row here.

An opcode the table lacks runs on the ALU (FFMA, IADD3: a fixed latency, in its stall count; where
one sets a scoreboard, I2F or POPC, its result is costed as a conversion), unless its name says it
drives the tensor cores: ...GMMA a warp-group matrix instruction, ...MMA an mma, either counted a
matrix instruction in the mix (a new architecture's mma was counted `other`: sm120's QMMA, before its
row).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import Enum, unique

# The instruction mix's kinds (instruction_mix.Op.kind; the captures' `instruction_mix` keys).
GLOBAL_LOAD, GLOBAL_STORE, ASYNC_COPY, TMA, TMA_STORE = "global_load", "global_store", "async_copy", "tma", "tma_store"
SHARED_LOAD, SHARED_STORE, LOCAL_LOAD, LOCAL_STORE = "shared_load", "shared_store", "local_load", "local_store"
MATRIX, BARRIER, ATOMIC, OTHER = "matrix", "barrier", "atomic", "other"


class Unit(Enum):
    """What does an instruction's work: its class."""

    GLOBAL = "global memory"
    ATOMIC = "global atomics and reductions"
    ASYNC_COPY = "asynchronous copy (global to shared)"
    TMA = "tensor memory accelerator"
    TEXTURE = "texture and surface"
    SHARED = "shared memory"
    LOCAL = "local memory"
    TENSOR_MEMORY = "tensor memory"
    WARPGROUP_MMA = "tensor cores, a warp group's (wgmma)"
    MMA = "tensor cores (mma)"
    SPECIAL_FUNCTION = "special function unit (MUFU)"
    FP64 = "FP64 unit"
    WARP = "warp-wide exchange"
    SPECIAL_REGISTER = "special registers"
    CONSTANT = "constant cache"
    BARRIER = "barrier"
    FENCE = "memory fence"
    ALU = "FMA and ALU"


@unique
class Result(Enum):
    """What a wait on a variable-latency result waits for: (what it is, as a wait names it; the
    latencies.Costs figure it takes; whether it waits in the DRAM's queue when the kernel is
    DRAM-bound; whether it is a load). A barrier wait on a transaction count (SYNCS ... TRANS)
    waits for memory; a warp-group matrix chain for every member's turn (warp_timeline.latency_of)."""

    GLOBAL_LOAD = ("global load", "global_memory", True, True)
    ATOMIC = ("atomic", "global_memory", True, False)  # an atomic's old value, back from the L2
    ASYNC_COPY = ("async copy", "global_memory", True, True)
    LOCAL = ("local memory", "l1", False, True)
    SHARED_LOAD = ("shared load", "shared", False, True)
    BARRIER_WAIT = ("barrier wait", "shared", True, False)
    SPECIAL_REGISTER = ("special register", "special_register", True, False)
    CONSTANT = ("constant load", "constant", False, False)
    MUFU = ("MUFU", "mufu", False, False)
    SHUFFLE = ("shuffle", "shuffle", False, False)
    WGMMA = ("wgmma", "tensor", False, False)
    MMA = ("mma", "tensor", False, False)
    FENCE_L2 = ("memory fence", "l2", False, False)
    FENCE_SHARED = ("memory fence", "shared", False, False)  # a proxy fence orders shared memory for the TMA

    def __init__(self, kind: str, cost: str, memory_queue: bool, load: bool):
        self.kind, self.cost, self.memory_queue, self.load = kind, cost, memory_queue, load


class L1(Enum):
    """The L1's bandwidth an instruction takes: global memory's (its bytes also go to DRAM), or shared's."""

    GLOBAL = "global"
    SHARED = "shared"


@dataclass(frozen=True)
class Sass:
    """One SASS opcode (without its modifiers)."""

    unit: Unit
    mix: str = OTHER
    result: Result | None = None  # None: a fixed latency, or one not tabled (warp_timeline.latency_of)
    l1: L1 | None = None
    drains: bool = False  # a store the warp waits for after its last EXIT
    held_by_barrier: bool = False  # a deferred-blocking BAR.SYNC holds the warp here: shared memory, a barrier

    @property
    def global_load(self) -> bool:
        """A plain load of global memory, one the SM keeps outstanding (not an atomic, copy or texture)."""
        return self.unit is Unit.GLOBAL and self.result is Result.GLOBAL_LOAD


_G, _S = L1.GLOBAL, L1.SHARED
SASS: dict[str, Sass] = {
    "LDG": Sass(Unit.GLOBAL, GLOBAL_LOAD, Result.GLOBAL_LOAD, _G),
    "LD": Sass(Unit.GLOBAL, OTHER, Result.GLOBAL_LOAD, _G),
    "STG": Sass(Unit.GLOBAL, GLOBAL_STORE, None, _G, drains=True),
    "ST": Sass(Unit.GLOBAL, OTHER, None, _G, drains=True),
    "ATOMG": Sass(Unit.ATOMIC, ATOMIC, Result.ATOMIC, _G, drains=True),
    "ATOM": Sass(Unit.ATOMIC, ATOMIC, Result.ATOMIC, _G),
    "RED": Sass(Unit.ATOMIC, ATOMIC, Result.FENCE_L2, _G, drains=True),
    "REDG": Sass(Unit.ATOMIC, ATOMIC, Result.FENCE_L2, _G, drains=True),
    "LDGSTS": Sass(Unit.ASYNC_COPY, ASYNC_COPY, Result.GLOBAL_LOAD, _G, held_by_barrier=True),
    "LDGDEPBAR": Sass(Unit.ASYNC_COPY, OTHER, Result.ASYNC_COPY),
    "UTMALDG": Sass(Unit.TMA, TMA),
    "UBLKCP": Sass(Unit.TMA, TMA),
    "UTMASTG": Sass(Unit.TMA, TMA_STORE, drains=True),
    "SULD": Sass(Unit.TEXTURE, OTHER, Result.GLOBAL_LOAD),
    "TLD": Sass(Unit.TEXTURE, OTHER, Result.GLOBAL_LOAD),
    "TEX": Sass(Unit.TEXTURE, OTHER, Result.GLOBAL_LOAD),
    "LDS": Sass(Unit.SHARED, SHARED_LOAD, Result.SHARED_LOAD, _S, held_by_barrier=True),
    "LDSM": Sass(Unit.SHARED, SHARED_LOAD, Result.SHARED_LOAD, _S, held_by_barrier=True),
    "STS": Sass(Unit.SHARED, SHARED_STORE, Result.SHARED_LOAD, _S, held_by_barrier=True),
    "STSM": Sass(Unit.SHARED, SHARED_STORE, None, _S, held_by_barrier=True),
    "ATOMS": Sass(Unit.SHARED, OTHER, Result.SHARED_LOAD, _S, held_by_barrier=True),
    "LDL": Sass(Unit.LOCAL, LOCAL_LOAD, Result.LOCAL, _S),
    "STL": Sass(Unit.LOCAL, LOCAL_STORE, Result.LOCAL, _S, drains=True),
    "LDTM": Sass(Unit.TENSOR_MEMORY, OTHER, Result.SHARED_LOAD),
    "HGMMA": Sass(Unit.WARPGROUP_MMA, MATRIX, Result.WGMMA, held_by_barrier=True),
    **{op: Sass(Unit.WARPGROUP_MMA, MATRIX, Result.WGMMA) for op in ("IGMMA", "QGMMA", "BGMMA")},
    # QMMA, OMMA: sm120's fp8/fp6 and fp4 mma (tl.dot of fp8, tl.dot_scaled)
    **{op: Sass(Unit.MMA, MATRIX, Result.MMA) for op in ("HMMA", "IMMA", "BMMA", "DMMA", "QMMA", "OMMA")},
    **{op: Sass(Unit.MMA, MATRIX, Result.MMA) for op in ("UTCHMMA", "UTCQMMA", "UTCIMMA", "UTCOMMA")},  # tcgen05
    "MUFU": Sass(Unit.SPECIAL_FUNCTION, OTHER, Result.MUFU),
    **{op: Sass(Unit.FP64) for op in ("DADD", "DMUL", "DFMA", "DSETP", "DMNMX")},
    "SHFL": Sass(Unit.WARP, OTHER, Result.SHUFFLE, _S),
    **{op: Sass(Unit.WARP, OTHER, Result.SHUFFLE) for op in ("VOTE", "MATCH", "REDUX")},
    **{op: Sass(Unit.SPECIAL_REGISTER, OTHER, Result.SPECIAL_REGISTER) for op in ("S2R", "S2UR", "CS2R")},
    **{op: Sass(Unit.CONSTANT, OTHER, Result.CONSTANT) for op in ("LDC", "LDCU", "ULDC")},
    "BAR": Sass(Unit.BARRIER, BARRIER, held_by_barrier=True),
    "SYNCS": Sass(Unit.BARRIER, BARRIER, Result.BARRIER_WAIT),
    "MEMBAR": Sass(Unit.FENCE, OTHER, Result.FENCE_L2),
    "FENCE": Sass(Unit.FENCE, OTHER, Result.FENCE_SHARED),
}
_ALU = Sass(Unit.ALU)
_BY_SUFFIX = (("GMMA", Sass(Unit.WARPGROUP_MMA, MATRIX, Result.WGMMA)), ("MMA", Sass(Unit.MMA, MATRIX, Result.MMA)))


@functools.cache  # a listing names a few dozen opcodes; the time model asks about each many times
def sass(opcode: str) -> Sass:
    """The row of an opcode, with or without its modifiers (LDG.E.128); module docstring for the rest."""
    base = opcode.split(".")[0]
    found = SASS.get(base)
    if found is not None:
        return found
    return next((row for suffix, row in _BY_SUFFIX if base.endswith(suffix)), _ALU)


_WIDTHS = (("128", 128), ("64", 64), ("U16", 16), ("S16", 16), ("U8", 8), ("S8", 8))


def access_bits(opcode: str) -> int:
    """Bits a thread moves: the width its modifiers name (LDG.E.128, .64, .U16, .S8), else 32."""
    modifiers = opcode.split(".")[1:]
    return next((bits for modifier, bits in _WIDTHS if modifier in modifiers), 32)


# AMDGCN opcodes by prefix (`global_load_dwordx4`, `ds_read_b128`, `v_mfma_f32_32x32x8f16`).
_AMDGCN_BARRIER = "s_barrier"  # this opcode alone: gfx12's s_barrier_signal and _wait count as other
_AMDGCN = (
    # gfx1250: an async copy into LDS (`global_load_async_to_lds_b128`), and its tensor-descriptor copies
    # (the TMA's kind): read as 32-bit global loads, they made a narrow-access finding of a 128-bit copy
    (("tensor_load_to_lds",), TMA),
    (("tensor_store_from_lds",), TMA_STORE),
    (("global_load_async_to_lds", "global_load_lds", "buffer_load_async_to_lds"), ASYNC_COPY),
    (("global_load", "buffer_load"), GLOBAL_LOAD),
    (("global_store", "buffer_store"), GLOBAL_STORE),
    (("global_atomic", "buffer_atomic", "flat_atomic"), ATOMIC),
    (("ds_read", "ds_load"), SHARED_LOAD),
    (("ds_write", "ds_store"), SHARED_STORE),
    (("v_mfma", "v_smfmac", "v_wmma"), MATRIX),
    (("scratch_load",), LOCAL_LOAD),
    (("scratch_store",), LOCAL_STORE),
)
_AMDGCN_WIDTHS = {
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


def amdgcn_kind(opcode: str) -> str:
    """An AMDGCN opcode's kind in the instruction mix."""
    if opcode == _AMDGCN_BARRIER:
        return BARRIER
    return next((kind for prefixes, kind in _AMDGCN if opcode.startswith(prefixes)), OTHER)


def amdgcn_bits(opcode: str) -> int:
    """Bits a thread moves in a global or buffer access: the size a word after the first two names
    (`global_load_dwordx4`, `global_load_async_to_lds_b128`), else 32."""
    words = opcode.split("_")[2:]
    return next((_AMDGCN_WIDTHS[w] for w in words if w in _AMDGCN_WIDTHS), 32)
