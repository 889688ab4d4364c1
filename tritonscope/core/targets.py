"""The GPUs tritonscope compiles for, and the per-multiprocessor limits that decide occupancy.

Every target Triton's NVIDIA and AMD backends compile for (3.5 to 3.9). Figures are from NVIDIA's
CUDA C++ Programming Guide (compute capability table) and AMD's CDNA ISA guides; a figure not
known for a target is None and reads "unknown". No Triton import here: the CLI validates --target
cheaply.
"""

from __future__ import annotations

import ctypes
import difflib
import functools
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Literal

from .backends import BACKENDS, Backend
from .errors import UsageError


# Figures from NVIDIA's CUDA C++ Programming Guide (its per-compute-capability table, as CCCL's
# cuda/__device/arch_traits.h spells it). A figure not published for a part is None: "unknown", and
# occupancy is computed from the known ones (AMD: LLVM's own estimate; analysis/resources.py).
# [Guide]: https://docs.nvidia.com/cuda/cuda-c-programming-guide/ "Technical Specifications per Compute
# Capability"; [Tuning]: NVIDIA's tuning guide of each architecture (docs.nvidia.com/cuda/<arch>-tuning-guide),
# which gives the shared memory per SM and the opt-in maximum per block. The defaults are sm90's.
@dataclass(frozen=True)
class NvidiaLimits:
    registers_per_sm: int = 65536  # [Guide] "32-bit registers per SM": 64K on every capability here
    registers_per_block: int = 65536  # [Guide] "32-bit registers per thread block": 64K
    register_granularity: int = 256  # registers are allocated per warp in units of 256 ([Guide] occupancy)
    sub_partitions: int = 4  # each SM's register file is split into four quadrants
    max_warps_per_sm: int = 64  # [Guide] "resident warps per SM"
    max_blocks_per_sm: int = 32  # [Guide] "resident blocks per SM"
    shared_per_sm: int = 233472  # [Guide], [Tuning]: 228 KiB on Hopper
    shared_per_block: int = 232448  # the opt-in maximum Triton checks a launch against: [Tuning] 227 KiB on Hopper
    shared_reserved_per_block: int = 1024  # the driver keeps 1 KiB per block (sm80 on; [Guide] "reserved")
    shared_granularity: int = 128
    max_threads_per_block: int = 1024  # [Guide] "threads per block"


# [ROCm]: ROCm's "AMD GPU specifications" table (rocm.docs.amd.com/en/latest/reference/gpu-specs.html: LDS
# and VGPR file per CU, wavefront size); [CDNA3], [CDNA4]: AMD's Instinct MI300 and MI350 ISA reference
# guides (the LDS a workgroup may allocate, waves per SIMD); [HIP]: HIP's hipDeviceProp_t
# maxThreadsPerBlock (1024 on every AMD GPU ROCm supports). The defaults are CDNA's.
@dataclass(frozen=True)
class AmdLimits:
    simds_per_cu: int | None = 4  # [CDNA3] a CU's four SIMDs
    max_waves_per_simd: int | None = 8  # [CDNA3] 8 wave slots per SIMD on CDNA2 and later
    vgprs_per_simd_lane: int | None = 512  # [ROCm] 512 KiB VGPR file per CU; VGPRs and AGPRs share it (CDNA2 on)
    vgpr_granularity: int | None = 8
    lds_per_cu: int | None = 65536  # [ROCm] [CDNA3] 64 KiB, all of it for one workgroup (what Triton checks)
    max_threads_per_block: int = 1024  # [HIP]
    wave_size: int = 64  # [ROCm] RDNA and gfx1250 run 32-wide waves


@dataclass(frozen=True)
class Gpu:
    """One GPU of a target as torch.cuda.get_device_properties reports it: what `trace --target`
    simulates (torch.compile puts these figures into its kernels' metadata and cache keys)."""

    name: str
    multiprocessors: int
    l2_bytes: int
    memory_bytes: int
    threads_per_multiprocessor: int = 2048


_MIB = 1 << 20
_AMD_CAPABILITY = {"gfx90a": (9, 0), "gfx942": (9, 4), "gfx950": (9, 5)}  # what ROCm's torch reports
_GPUS = {
    "sm75": Gpu("Tesla T4", 40, 4 * _MIB, 15095 * _MIB, 1024),
    "sm80": Gpu("NVIDIA A100-SXM4-80GB", 108, 40 * _MIB, 81920 * _MIB),
    "sm86": Gpu("NVIDIA GeForce RTX 3090", 82, 6 * _MIB, 24576 * _MIB, 1536),
    "sm89": Gpu("NVIDIA L4", 58, 48 * _MIB, 23034 * _MIB, 1536),
    "sm90": Gpu("NVIDIA H100 80GB HBM3", 132, 50 * _MIB, 81079 * _MIB),
    "h200": Gpu("NVIDIA H200", 132, 60 * _MIB, 143771 * _MIB),  # as torch reports it on an H200 SXM
    "sm100": Gpu("NVIDIA B200", 148, 126 * _MIB + 512 * 1024, 182642 * _MIB),
    "sm120": Gpu("NVIDIA GeForce RTX 5090", 170, 96 * _MIB, 32607 * _MIB, 1536),
    "gfx90a": Gpu("AMD Instinct MI250X/MI250", 104, 8 * _MIB, 65536 * _MIB),
    "gfx942": Gpu("AMD Instinct MI300X", 304, 4 * _MIB, 196592 * _MIB),
    "gfx950": Gpu("AMD Instinct MI355X", 256, 4 * _MIB, 294896 * _MIB),
}


@dataclass(frozen=True)
class Speeds:
    """How fast a target's reference GPU moves data and multiplies matrices: what a whole launch's time
    is made of (analysis/launch_time.py). A figure not published is None, and that bound is not
    estimated (said where the estimate is shown)."""

    gpu: str  # the part the figures are of
    multiprocessors: int
    clock_mhz: int  # the SM's boost clock
    dram_bytes_per_s: float
    l2_bytes: int
    l2_bytes_per_clock: int | None  # the whole L2's read bandwidth, bytes per SM clock
    tensor_flops_per_clock: int | None  # per SM: dense fp16/bf16 matrix products with fp32 accumulation
    launch_us: float  # one launch's fixed cost: the time an empty kernel takes, launched back to back

    @property
    def dram_bytes_per_clock(self) -> float:
        """The DRAM's bandwidth in bytes per SM clock, the whole GPU's."""
        return self.dram_bytes_per_s / (self.clock_mhz * 1e6)


# [Data sheet]: the vendor's product page or data sheet of the part named; [Whitepaper]: NVIDIA's architecture
# whitepaper (A100: "NVIDIA A100 Tensor Core GPU Architecture", Table 3 and "L2 cache read bandwidth: 5120
# bytes/clk"; H100: "NVIDIA H100 Tensor Core GPU Architecture", Table 3: 1,830 MHz for the FP16 tensor peak,
# 1,980 MHz boost). Tensor rates per SM per clock are the data sheet's dense FP16 peak (half the sparse one)
# over SMs x the clock it is quoted at. L2 sizes are what torch reports. The DRAM bandwidth per SM per clock
# is the one analysis/latencies.py derives the same way (the data sheet's bandwidth, SMs, boost clock).
# Launch cost: an empty kernel under triton.testing.do_bench on the H200 takes 3.49 us (what a launch's time
# is measured with; in a CUDA graph 0.49 us): benchmarks/launch_ground_truth.py, docs/data/h200-launch/; assumed
# the same on every GPU.
_LAUNCH_US = 3.5
_SPEEDS = {
    # T4 [Data sheet]: 320 GB/s, 65 TFLOPS FP16 mixed precision; 40 SMs at 1,590 MHz.
    "sm75": Speeds("Tesla T4", 40, 1590, 320e9, 4 * _MIB, None, 1024, _LAUNCH_US),
    # A100 SXM4 80GB [Data sheet] 2,039 GB/s, 312 TFLOPS FP16; [Whitepaper] 108 SMs at 1,410 MHz, 5,120 B/clk.
    "sm80": Speeds("A100-SXM4-80GB", 108, 1410, 2039e9, 40 * _MIB, 5120, 2048, _LAUNCH_US),
    # RTX 3090 [Data sheet, GA102 whitepaper]: 936 GB/s; 71 TFLOPS FP16 with FP32 accumulation (GeForce's
    # half rate); 82 SMs at 1,695 MHz.
    "sm86": Speeds("GeForce RTX 3090", 82, 1695, 936e9, 6 * _MIB, None, 512, _LAUNCH_US),
    # L4 [Data sheet]: 300 GB/s, 242 TFLOPS FP16 with sparsity; 58 SMs at 2,040 MHz.
    "sm89": Speeds("L4", 58, 2040, 300e9, 48 * _MIB, None, 1024, _LAUNCH_US),
    # H100 SXM5 [Data sheet] 3.35 TB/s, 1,979 TFLOPS FP16 with sparsity; [Whitepaper] 132 SMs, 1,980 MHz, and
    # 989.4 dense TFLOPS at 1,830 MHz: 4,096 per SM per clock. Hopper's whitepaper gives no L2 bandwidth: the
    # A100's 5,120 bytes per clock, which the H200 bears out (its matmuls of small tiles, L2-bound, read
    # 10.3 to 10.6 TB/s from the L2 at 1,980 MHz: docs/data/h200-launch).
    "sm90": Speeds("H100 SXM5", 132, 1980, 3.35e12, 50 * _MIB, 5120, 4096, _LAUNCH_US),
    # H200 SXM [Data sheet]: 4.8 TB/s, the H100's SM, clocks and tensor cores; 60 MB of L2 as torch reports.
    "h200": Speeds("H200 SXM", 132, 1980, 4.8e12, 60 * _MIB, 5120, 4096, _LAUNCH_US),
    # B200 [Data sheet]: 8 TB/s; 148 SMs at 1,965 MHz; its tcgen05 rate per SM is not modeled yet.
    "sm100": Speeds("B200", 148, 1965, 8e12, 126 * _MIB + 512 * 1024, None, None, _LAUNCH_US),
    # RTX 5090 [Data sheet]: 1,792 GB/s; 170 SMs at 2,407 MHz.
    "sm120": Speeds("GeForce RTX 5090", 170, 2407, 1.792e12, 96 * _MIB, None, None, _LAUNCH_US),
}


@dataclass(frozen=True)
class Target:
    name: str
    backend: Literal["cuda", "hip"]
    arch: int | str  # Triton's GPUTarget arch: 90, "gfx942"
    warp_size: int
    description: str
    limits: NvidiaLimits | AmdLimits
    since: tuple[int, int] = (3, 5)  # the first Triton release whose backend compiles for it

    @property
    def unknown(self) -> tuple[str, ...]:
        """The limits not known for this target: they read "unknown" wherever they are shown."""
        return tuple(name for name, value in vars(self.limits).items() if value is None)

    @property
    def gpu(self) -> Gpu:
        """The GPU `trace --target` simulates for this target."""
        if self.name not in _GPUS:
            tabled = ", ".join(_GPUS)
            raise UsageError(f"no GPU of {self.name} is tabled to simulate (those that are: {tabled})")
        return _GPUS[self.name]

    @property
    def device_name(self) -> str:
        """The name torch gives this target's GPU (`NVIDIA H200`); the target's own where none is tabled."""
        gpu = _GPUS.get(self.name)
        return gpu.name if gpu is not None else self.name

    @property
    def speeds(self) -> Speeds | None:
        """How fast its reference GPU is, for a launch's time; None where its figures are not published."""
        return _SPEEDS.get(self.name)

    def simulated_device(self) -> dict:
        """What triton_api/simulated/ is activated with: plain data, passed to the traced program."""
        gpu, limits = self.gpu, self.limits
        per_block: int | None
        per_multiprocessor: int | None
        if isinstance(limits, NvidiaLimits):
            capability = divmod(int(self.arch), 10)
            per_block, per_multiprocessor = limits.shared_per_block, limits.shared_per_sm
        else:  # an AMD workgroup may take all of its CU's LDS
            capability = _AMD_CAPABILITY[str(self.arch)]
            per_block = per_multiprocessor = limits.lds_per_cu
        return {
            "target": self.name,
            "name": gpu.name,
            "backend": self.backend,
            "arch": self.arch,
            "capability": list(capability),
            "warp_size": self.warp_size,
            "multiprocessor_count": gpu.multiprocessors,
            "shared_memory_per_block_optin": per_block,
            "shared_memory_per_multiprocessor": per_multiprocessor,
            "l2_cache_size": gpu.l2_bytes,
            "total_memory": gpu.memory_bytes,
            "max_threads_per_multiprocessor": gpu.threads_per_multiprocessor,
        }

    @property
    def shared_limit(self) -> int | None:
        """The most shared memory (LDS) one block may use: the device's `max_shared_mem`, which Triton checks
        each launch against (OutOfResources above it). None where the table does not know it."""
        limits = self.limits
        return limits.shared_per_block if isinstance(limits, NvidiaLimits) else limits.lds_per_cu

    @property
    def vendor(self) -> Backend:
        """Everything vendor-specific about this target: stages, machine code, words."""
        return BACKENDS[self.backend]

    @property
    def label(self) -> str:
        """The name NVIDIA or AMD use: sm_90, gfx942."""
        return self.vendor.label(self.arch)


_KIB = 1024
# Turing (7.5): [Guide] 32 warps and 16 blocks per SM; [Tuning] (Turing) 64 KiB of shared memory per SM and
# per block, with no opt-in above it and no reserved KiB.
_TURING = NvidiaLimits(
    max_warps_per_sm=32,
    max_blocks_per_sm=16,
    shared_per_sm=64 * _KIB,
    shared_per_block=64 * _KIB,
    shared_reserved_per_block=0,
)
# Blackwell 10.0 and 10.3: [Guide], [Tuning] (Blackwell) as Hopper: 228 KiB per SM, 227 KiB per block.
_DATACENTER_BLACKWELL = NvidiaLimits()
# Thor (11.0, once 10.1): [Guide] 48 warps and 24 blocks per SM; shared memory as 10.0.
_THOR = NvidiaLimits(max_warps_per_sm=48, max_blocks_per_sm=24)
# Blackwell 12.0 and 12.1: [Guide] 48 warps and 24 blocks per SM; [Tuning] (Blackwell) 100 KiB per SM, 99 per block.
_CONSUMER_BLACKWELL = NvidiaLimits(
    max_warps_per_sm=48, max_blocks_per_sm=24, shared_per_sm=100 * _KIB, shared_per_block=99 * _KIB
)
# RDNA: a CU has two SIMD32s and 64 KiB of LDS a workgroup can use; 16 waves per SIMD is what LLVM's own
# `; Occupancy` gives a light kernel on gfx11, gfx12 and gfx12.5. VGPRs per lane differ between parts of
# one family, so they are unknown, and LLVM's waves per SIMD for the kernel stand in for that limit.
# LDS: [ROCm] (its Radeon table) 128 KiB per WGP, two CUs, of which a workgroup may take 64 KiB.
_RDNA = AmdLimits(simds_per_cu=2, max_waves_per_simd=16, vgprs_per_simd_lane=None, vgpr_granularity=None, wave_size=32)
TARGETS: dict[str, Target] = {
    t.name: t
    for t in [
        Target("sm75", "cuda", 75, 32, "T4, RTX 20xx (Turing)", _TURING),
        # A100 (8.0): [Guide] 64 warps, 32 blocks; [Tuning] (Ampere) 164 KiB per SM, 163 KiB per block.
        Target(
            "sm80", "cuda", 80, 32, "A100 (Ampere)", NvidiaLimits(shared_per_sm=164 * _KIB, shared_per_block=163 * _KIB)
        ),
        # GA10x (8.6): [Guide] 48 warps, 16 blocks; [Tuning] (Ampere) 100 KiB per SM, 99 KiB per block.
        Target(
            "sm86",
            "cuda",
            86,
            32,
            "RTX 30xx, A40 (Ampere)",
            NvidiaLimits(
                max_warps_per_sm=48, max_blocks_per_sm=16, shared_per_sm=100 * _KIB, shared_per_block=99 * _KIB
            ),
        ),
        # Ada (8.9): [Guide] 48 warps, 24 blocks; [Tuning] (Ada) 100 KiB per SM, 99 KiB per block.
        Target(
            "sm89",
            "cuda",
            89,
            32,
            "RTX 40xx, L4, L40 (Ada)",
            NvidiaLimits(
                max_warps_per_sm=48, max_blocks_per_sm=24, shared_per_sm=100 * _KIB, shared_per_block=99 * _KIB
            ),
        ),
        # Hopper (9.0): [Guide] 64 warps, 32 blocks; [Tuning] (Hopper) 228 KiB per SM, 227 KiB per block.
        Target("sm90", "cuda", 90, 32, "H100, H200 (Hopper)", NvidiaLimits()),
        # The H200: an H100's SM (sm90, the same code) with HBM3e: its own figures for a launch's time.
        Target("h200", "cuda", 90, 32, "H200 (Hopper, HBM3e)", NvidiaLimits()),
        Target("sm100", "cuda", 100, 32, "B200 (Blackwell)", _DATACENTER_BLACKWELL),
        Target("sm103", "cuda", 103, 32, "B300, GB300 (Blackwell Ultra)", _DATACENTER_BLACKWELL),
        Target("sm110", "cuda", 110, 32, "Jetson Thor (Blackwell; Triton 3.9 on)", _THOR, since=(3, 9)),
        Target("sm120", "cuda", 120, 32, "RTX 50xx, RTX PRO 6000 (Blackwell)", _CONSUMER_BLACKWELL),
        Target("sm121", "cuda", 121, 32, "DGX Spark GB10 (Blackwell)", _CONSUMER_BLACKWELL),
        # MI200, MI300: [ROCm] 64 KiB of LDS per CU; MI350: [ROCm] [CDNA4] 160 KiB.
        Target("gfx90a", "hip", "gfx90a", 64, "MI200 (CDNA2)", AmdLimits()),
        Target("gfx942", "hip", "gfx942", 64, "MI300 (CDNA3)", AmdLimits()),
        Target("gfx950", "hip", "gfx950", 64, "MI350 (CDNA4)", AmdLimits(lds_per_cu=160 * _KIB)),
        Target("gfx1100", "hip", "gfx1100", 32, "RX 7900, PRO W7900 (RDNA3)", _RDNA),
        Target("gfx1200", "hip", "gfx1200", 32, "RX 9060 (RDNA4)", _RDNA),
        # gfx1250: no public table gives its LDS, register file or SIMDs yet: unknown, never guessed.
        Target(
            "gfx1250",
            "hip",
            "gfx1250",
            32,
            "MI400-series (gfx12.5)",
            AmdLimits(
                simds_per_cu=None,
                max_waves_per_simd=16,
                vgprs_per_simd_lane=None,
                vgpr_granularity=None,
                lds_per_cu=None,
                wave_size=32,
            ),
        ),
    ]
}
DEFAULT_TARGET = "sm90"


def resolve_target(name: str) -> tuple[Target, str | None]:
    """The target for a --target value, and a notice to show when `auto` had to guess. Only core/
    resolves one: a request's once where it is made (`VariantRequest.resolved`), a command's own where
    it is given (`forms.command_target`)."""
    key = parse_name(name)
    if key == "auto":
        local = local_target()
        if local is not None:
            return local, None
        return auto(), f"no GPU visible: compiling for {DEFAULT_TARGET} (choose with --target)"
    return TARGETS[key], None


def auto() -> Target:
    """What `--target auto` compiles for: the visible GPU's target, else the default."""
    return local_target() or TARGETS[DEFAULT_TARGET]


def parse_name(name: str, flag: str = "--target") -> str:
    """A --target value as a target's name (sm_90 is sm90) or `auto`, resolved later where the
    compile runs; an unknown name fails here, before any work. `flag`: the flag a list of targets
    came with (`--targets`, `--fit`), which takes no `auto`."""
    key = name.strip().lower().replace("_", "")
    if key == "auto" or key in TARGETS:
        return key
    auto = ", auto" if flag == "--target" else ""
    if not key:
        raise UsageError(
            f"{flag} is empty (an unset variable in a script?)", hint=f"give one: {', '.join(TARGETS)}{auto}"
        )
    gpu = [t for t in TARGETS.values() if re.search(rf"\b{re.escape(key)}\b", t.description.lower())]
    if len(gpu) == 1 and re.fullmatch(r"[a-z]+\d+[a-z]*", key):  # a GPU's name (h100, a100, b200): its target
        return gpu[0].name
    hint = f"{name} is the GPU of target {gpu[0].name} ({gpu[0].description}): {flag} {gpu[0].name}" if gpu else None
    base = re.sub(r"(?<=\d)[af]$", "", key)  # sm_90a, sm_100f: the PTX's architecture, a target's features
    if base != key and base in TARGETS:
        hint = f"{name} is the architecture the PTX names for target {base}: {flag} {base}"
    elif hint is None:  # a target's name, or a GPU's that names one (h1000: did you mean h100?)
        close = difflib.get_close_matches(key, [*TARGETS, *gpu_names()], n=1, cutoff=0.75)
        hint = f"did you mean {close[0]}?" if close else None
    if "," in key and all(part.strip() in TARGETS for part in key.split(",")):
        hint = f"--target takes one; for several: `fit --targets {key}` or `diff --vary target={key}`"
    gpus = f"; or a GPU's name ({', '.join(gpu_names())})"
    raise UsageError(f"unknown target '{name}'. Valid targets: {', '.join(TARGETS)}{auto}{gpus}", hint=hint)


def gpu_names() -> list[str]:
    """The GPUs' names a --target takes for their target (h100 for sm90, a100 for sm80): each a word of
    one target's description alone."""
    words: dict[str, set[str]] = {}
    for target in TARGETS.values():
        for word in re.findall(r"\b[a-z]+\d+[a-z]*\b", target.description.lower()):
            words.setdefault(word, set()).add(target.name)
    not_gpus = ("hbm", "cdna", "rdna", "gfx")  # a memory's or an architecture's word, not a GPU's
    return sorted(
        w for w, names in words.items() if len(names) == 1 and w not in TARGETS and not w.startswith(not_gpus)
    )


def named(name: str) -> Target | None:
    """The target of a name read back (a cache entry's, a saved report's, a compiled Variant's), or
    None where tritonscope has no target of that name."""
    return TARGETS.get(name)


@functools.cache
def local_target() -> Target | None:
    """The visible GPU's target, found without importing torch (which `dump` must not load); asked once
    per process, however many times `--target auto` is resolved."""
    return _local_cuda_target() or _local_hip_target()


def _local_cuda_target() -> Target | None:
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    count, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
        return None
    # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76, of device 0
    cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, 0)
    cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, 0)
    name = ctypes.create_string_buffer(256)
    cuda.cuDeviceGetName(name, len(name), 0)
    if major.value == 9 and b"H200" in name.value:  # an H100's code, its own speeds (a launch's time)
        return TARGETS["h200"]
    return TARGETS.get(f"sm{major.value}{minor.value}") or TARGETS.get(f"sm{major.value}0")


def _local_hip_target() -> Target | None:
    tool = shutil.which("rocm_agent_enumerator")
    if tool is None:
        return None
    try:
        names = subprocess.run([tool], capture_output=True, text=True, timeout=10).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    return next((TARGETS[n] for n in names if n in TARGETS), None)
