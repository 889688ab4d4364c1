"""What one instruction costs on each NVIDIA target: the latency of a variable-latency result and
the cycles a warp's instruction holds its pipe, by instruction class (which opcode is in which
class: analysis/opcodes.py); and the DRAM bandwidth.

The figures are those of microbenchmark studies, as the Accel-Sim simulator's configurations
(github.com/accel-sim/accel-sim-framework, gpu-simulator/gpgpu-sim/configs/tested-cfgs/, tuned
to microbenchmarks run on each GPU) carry them:
  - Turing (sm75), SM75_RTX2060/gpgpusim.config: L1 hit 32 cycles, shared 30, L2 194 (+96 to
    DRAM), SFU (MUFU) 21 cycles issuing one warp every 8, tensor core 64/64, FP64 64/64.
  - Ampere (sm80), NVIDIA_A100_80GB_PCIe/gpgpusim.config: L1 37, shared 29, L2 224 (+198 to
    DRAM), SFU 23/8, FP32 4/2, tensor 25/16.
  - Hopper (sm90): gpu-simulator/configs/tested-cfgs/SM90_H100/trace.config: SFU 23/8, INT and
    FP32 4/2; its gpgpusim.config (the jc19chaoj/accel-sim-framework fork): L1 34, shared 28,
    L2 200 (+190 to DRAM), tensor (mma.sync) 25/16.
These agree in range with the microbenchmark papers: Jia et al. (Volta arXiv:1804.06826, Turing
arXiv:1903.07486) and Luo et al. (Hopper, arXiv:2402.13499 and arXiv:2501.12084): shared memory
near 30 cycles, L1 near 30-40, L2 near 200-270, DRAM near 400-600, a dependent FP32 op 4 cycles.
ptxas writes the fixed latencies into each instruction's stall count, so only the
variable-latency classes are tabled. Where no study covers a target (Ada sm89, Blackwell sm100
and sm120), the nearest older one's figures are used and `assumed` says so.

Warp-group matrix instructions (HGMMA m64nNk16, sm90) are costed by their shape from the
published dense peak: an H100 SXM's 989 TFLOPS of FP16 at 132 SMs and 1.83 GHz is 2048 FMA per
cycle per SM, so m64nNk16 holds the SM's tensor cores N/2 cycles (FP8's m64nNk32 at twice the
rate, the same). DRAM bandwidth per
SM per cycle is the datasheet's bandwidth over SMs times boost clock: H100 SXM 3.35 TB/s, A100
80GB 2.0 TB/s, T4 320 GB/s, RTX 3090 936 GB/s, L4 300 GB/s, B200 8 TB/s, RTX 5090 1.79 TB/s.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from . import opcodes
from .opcodes import L1, Unit


@dataclass(frozen=True)
class Costs:
    """One family's figures, in SM cycles."""

    family: str
    global_memory: int  # a global load served by DRAM
    l2: int  # served by L2: what a store waits for to drain, an atomic's round trip
    l1: int  # local memory (spills) and L1 hits
    shared: int
    mufu: int
    mufu_interval: int  # cycles a warp's MUFU holds its scheduler's special-function unit
    tensor: int  # an mma.sync (HMMA) result
    tensor_interval: int
    fp64_interval: int
    dram_bytes_per_cycle: float  # per SM
    source: str
    assumed: bool = False
    l1_and_shared_bytes: int = 256 * 1024  # per SM: the unified L1 and shared memory
    # Global loads an SM keeps outstanding before its warps stall issuing more (ncu's lg/mio
    # throttle), in warp instructions whatever their width. Not published: bracketed on the H100 by
    # the stall reasons of the tuning kernels (64 warps x 8 narrow loads in flight: 1% throttle;
    # 40 x 29: 40%) and set between; assumed the same on every family.
    pending_loads: int = 768

    # The rest of the variable-latency classes: short-scoreboard ops through the MIO queue.
    special_register: int = 24  # S2R
    constant: int = 20  # LDC from the constant cache
    shuffle: int = 28
    conversion: int = 18  # I2F, F2I, F2F, POPC ... where the XU pipe runs them
    register_read: int = 12  # a read scoreboard: a memory op's sources read


_TURING = Costs(
    "Turing", 290, 194, 32, 30, 21, 8, 64, 64, 64, 5.0, "Accel-Sim SM75_RTX2060", l1_and_shared_bytes=96 * 1024
)
_AMPERE = Costs(
    "Ampere",
    422,
    224,
    37,
    29,
    23,
    8,
    25,
    16,
    4,
    13.4,
    "Accel-Sim NVIDIA_A100_80GB_PCIe",
    l1_and_shared_bytes=192 * 1024,
)
_HOPPER = Costs("Hopper", 390, 200, 34, 28, 23, 8, 25, 16, 2, 12.8, "Accel-Sim SM90_H100")
FAMILIES = {
    75: _TURING,
    80: _AMPERE,
    86: Costs("Ampere (GA10x)", 422, 224, 37, 29, 23, 8, 25, 32, 64, 6.7, "Accel-Sim A100, assumed", True, 128 * 1024),
    89: Costs("Ada", 422, 224, 37, 29, 23, 8, 25, 32, 64, 2.5, "Accel-Sim A100, assumed", True, 128 * 1024),
    90: _HOPPER,
    100: Costs("Blackwell", 390, 200, 34, 28, 23, 8, 25, 16, 2, 27.5, "Accel-Sim H100, assumed", True),
    120: Costs(
        "Blackwell (GB20x)", 390, 200, 34, 28, 23, 8, 25, 32, 64, 4.4, "Accel-Sim H100, assumed", True, 128 * 1024
    ),
}
_SHAPE = re.compile(r"^(\d+)x(\d+)x(\d+)$")


def for_arch(arch: int) -> Costs:
    """The figures of a target's family: sm103/sm110 as sm100, sm121 as sm120, sm87 as sm86."""
    return FAMILIES[max(a for a in FAMILIES if a <= arch)]


def matrix_cycles(opcode: str, costs: Costs) -> float:
    """Cycles a warp-group matrix instruction holds the SM's tensor cores: m64nNkK at the dense peak
    takes N/2 cycles whatever its type (K doubles as the rate does); an mma.sync its interval."""
    parts = opcode.split(".")
    shape = _SHAPE.match(parts[1]) if len(parts) > 1 else None
    if opcodes.sass(opcode).unit is Unit.WARPGROUP_MMA and shape:
        return int(shape.group(2)) / 2
    return float(costs.tensor_interval)


L1_BYTES_PER_CYCLE = 32  # per scheduler: an SM's L1 and shared memory move 128 bytes a cycle
MIO_ENTRY = 128 / L1_BYTES_PER_CYCLE  # cycles of one 32-bit warp access: an instruction's turn in the queue


def access_bytes(opcode: str) -> int:
    """Bytes a thread moves: the width its modifiers name (.128, .64, .U16, .S8), else 4."""
    return opcodes.access_bits(opcode) // 8


def global_bytes(opcode: str) -> int:
    """Bytes a warp's global memory instruction moves (32 threads, coalesced)."""
    return 32 * access_bytes(opcode) if opcodes.sass(opcode).l1 is L1.GLOBAL else 0


def lsu_cycles(opcode: str, costs: Costs) -> float:
    """Cycles a warp's memory instruction holds its scheduler's share of the L1 (0 for the rest)."""
    return _lsu_cycles(opcode)


@functools.lru_cache(maxsize=4096)  # asked of every instruction of every walk
def _lsu_cycles(opcode: str) -> float:
    if opcodes.sass(opcode).l1 is None:
        return 0.0
    if opcode.split(".")[0] == "LDSM":
        count = opcode.split(".")[-1]
        return 32 * 4 * (int(count) if count.isdigit() else 1) / L1_BYTES_PER_CYCLE
    return max(1.0, 32 * access_bytes(opcode) / L1_BYTES_PER_CYCLE)
