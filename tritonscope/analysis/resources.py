"""Resource figures of a compiled kernel and the occupancy they allow, computed without a GPU.

NVIDIA occupancy follows the rules of the CUDA occupancy calculator
(cuda_occupancy.h): registers are allocated per warp in units of 256 within four
sub-partitions, shared memory per block in units of 128 bytes plus 1 KiB the driver
reserves. AMD occupancy follows the CDNA rules: VGPRs per SIMD lane in granules of
8, at most 8 waves per SIMD, LDS shared by the workgroups of a CU.
"""

from __future__ import annotations

from ..core.model import Occupancy, Resources
from ..core.quantities import count, size
from ..core.targets import AmdLimits, NvidiaLimits, Target


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def nvidia_occupancy(
    limits: NvidiaLimits, registers: int, shared_bytes: int, num_warps: int, reserved_included: bool = False
) -> Occupancy:
    """Blocks of `num_warps` warps resident per SM, and which limit binds first. `reserved_included`:
    SHARED_BYTES holds the driver's reserved KiB already (an sm90-on cubin carries it as static shared
    memory, `.nv.reservedSmem`): counted twice, a 16 KiB block was 12 per H200 SM where the driver's
    occupancy query gives 13 (h26a)."""
    reserved = limits.shared_reserved_per_block
    own = shared_bytes - reserved if reserved_included else shared_bytes  # what the opt-in maximum bounds
    warps_per_block = num_warps
    regs_per_warp = _round_up(registers * 32, limits.register_granularity)
    regs_assumed = regs_per_warp * _round_up(warps_per_block, limits.sub_partitions)
    candidates: dict[str, int] = {
        "warps": limits.max_warps_per_sm // warps_per_block,
        "blocks": limits.max_blocks_per_sm,
    }
    if regs_per_warp:
        if regs_assumed > limits.registers_per_block or regs_per_warp * warps_per_block > limits.registers_per_block:
            candidates["registers"] = 0
        else:
            warps_per_partition = (limits.registers_per_sm // limits.sub_partitions) // regs_per_warp
            candidates["registers"] = warps_per_partition * limits.sub_partitions // warps_per_block
    if own > limits.shared_per_block:
        candidates["shared memory"] = 0
    elif shared_bytes:
        per_block = _round_up(own + reserved, limits.shared_granularity)
        candidates["shared memory"] = limits.shared_per_sm // per_block
    if warps_per_block * 32 > limits.max_threads_per_block:
        candidates["threads per block"] = 0
    return _occupancy(candidates, warps_per_block, limits.max_warps_per_sm)


def amd_occupancy(
    limits: AmdLimits, vgprs: int, lds_bytes: int, num_warps: int, llvm_waves: int | None = None
) -> Occupancy:
    """Workgroups of `num_warps` wavefronts resident per CU, and which limit binds first. Where the
    table has no VGPR figures for a target, LLVM's own waves per SIMD (`; Occupancy`) stands in; a
    CU's SIMD count unknown, the figures are per SIMD (one SIMD taken as the unit)."""
    waves_per_block = num_warps
    simds = limits.simds_per_cu or 1
    max_per_simd = limits.max_waves_per_simd or llvm_waves or 1
    if limits.simds_per_cu is None:
        return _per_simd(limits, vgprs, lds_bytes, waves_per_block, llvm_waves, max_per_simd)
    max_waves = max_per_simd * simds
    candidates: dict[str, int] = {
        "waves": max_waves // waves_per_block,
        "registers": amd_waves_per_simd(limits, vgprs, llvm_waves) * simds // waves_per_block,
    }
    if limits.lds_per_cu is not None and lds_bytes > limits.lds_per_cu:
        candidates["shared memory"] = 0
    elif limits.lds_per_cu is not None and lds_bytes:
        candidates["shared memory"] = limits.lds_per_cu // lds_bytes
    if waves_per_block * limits.wave_size > limits.max_threads_per_block:
        candidates["threads per block"] = 0
    return _occupancy(candidates, waves_per_block, max_waves)


def _per_simd(
    limits: AmdLimits, vgprs: int, lds_bytes: int, waves_per_block: int, llvm_waves: int | None, max_per_simd: int
) -> Occupancy:
    """The SIMDs per CU unknown (gfx1250): the waves one SIMD holds, LLVM's `; Occupancy`, of its most.
    A block's waves are spread over the CU's SIMDs, so one block of them fits wherever LLVM compiled it
    (its waves per SIMD were read as the CU's: an 8-wave block "did not fit" in 5, "launch will fail")."""
    per_simd = amd_waves_per_simd(limits, vgprs, llvm_waves)
    too_big = waves_per_block * limits.wave_size > limits.max_threads_per_block
    over_lds = limits.lds_per_cu is not None and lds_bytes > limits.lds_per_cu
    if too_big or over_lds:
        return Occupancy(0, 0, max_per_simd, "threads per block" if too_big else "shared memory", per="SIMD")
    return Occupancy(1, per_simd, max_per_simd, "registers" if per_simd < max_per_simd else "waves", per="SIMD")


def amd_waves_per_simd(limits: AmdLimits, vgprs: int, llvm_waves: int | None = None) -> int:
    """Wavefronts one SIMD can hold given each one's VGPRs (LLVM prints the same as `; Occupancy`);
    LLVM's figure itself where the table does not know the register file."""
    if limits.vgprs_per_simd_lane is None or limits.vgpr_granularity is None or limits.max_waves_per_simd is None:
        return llvm_waves or limits.max_waves_per_simd or 1
    if not vgprs:
        return limits.max_waves_per_simd
    return min(limits.max_waves_per_simd, limits.vgprs_per_simd_lane // _round_up(vgprs, limits.vgpr_granularity))


def _occupancy(candidates: dict[str, int], warps_per_block: int, max_warps: int) -> Occupancy:
    # min() keeps the first of equal limits: the hardware maxima (warps, blocks) come first, so a
    # kernel that reaches full occupancy is said to be limited by them, not by a tying resource.
    limited_by = min(candidates, key=candidates.__getitem__)
    blocks = max(candidates[limited_by], 0)
    return Occupancy(blocks, blocks * warps_per_block, max_warps, limited_by)


def nvidia_resources(
    target: Target,
    usage: dict[str, int],
    shared_bytes: int,
    num_warps: int,
    spilled: tuple[int, int] | None = None,
    reserved_included: bool = False,
) -> Resources:
    """Resources from cuobjdump's fields (REG, STACK, SHARED, LOCAL), Triton's dynamic shared bytes and
    ptxas's spill stores and loads (None: not reported). The driver's local size
    (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) is the stack frame, where ptxas spills, plus local memory;
    Triton's n_spills is that over 4. Where ptxas reports no spill store nor load, the frame holds
    local arrays (sin and cos's slow argument reduction keeps one), not spilled registers: 0 spills."""
    limits = target.limits
    if not isinstance(limits, NvidiaLimits):
        raise TypeError(f"{target.name} is not an NVIDIA target")
    shared = shared_bytes + usage.get("SHARED", 0)
    # the reserved KiB is in the static count only where the cubin put it there: a kernel of no shared
    # memory carries the section with a static size of 0 (its launch's bytes read -1024)
    reserved_included = reserved_included and usage.get("SHARED", 0) >= limits.shared_reserved_per_block
    occupancy = nvidia_occupancy(limits, usage["REG"], shared, num_warps, reserved_included)
    local, stack = usage.get("LOCAL", 0), usage.get("STACK", 0)
    own = shared - limits.shared_reserved_per_block if reserved_included else shared  # as Triton checks it
    warnings = _warnings(target, own, limits.shared_per_block, local + stack, num_warps, occupancy)
    if spilled is not None and spilled != (0, 0):
        warnings += (f"ptxas spills: {spilled[0]} bytes stored and {spilled[1]} bytes loaded per thread",)
    no_spill = spilled == (0, 0)
    if no_spill:  # ptxas says which: a local array
        warnings = tuple(
            w.replace("(register spills or local arrays)", "(local arrays: ptxas spills no register)") for w in warnings
        )
    spilled = spilled or (0, 0)
    return Resources(
        registers=usage["REG"],
        spills=0 if no_spill else (local + stack) // 4,  # else what the driver (and Triton's n_spills) reports
        shared_bytes=shared,
        local_bytes=local,
        stack_bytes=stack,
        occupancy=occupancy,
        spill_store_bytes=spilled[0],
        spill_load_bytes=spilled[1],
        warnings=warnings,
        reserved_in_shared=reserved_included,
    )


def amd_resources(
    target: Target, fields: dict[str, int], shared_bytes: int, num_warps: int, llvm_waves: int | None = None
) -> Resources:
    """Resources from the AMDGCN metadata block (see parsers.amdgcn) and Triton's dynamic LDS bytes."""
    limits = target.limits
    if not isinstance(limits, AmdLimits):
        raise TypeError(f"{target.name} is not an AMD target")
    vgprs = total_vgprs(fields)
    lds = fields.get("group_segment_fixed_size", 0) + shared_bytes
    scratch = fields.get("private_segment_fixed_size", 0)
    occupancy = amd_occupancy(limits, vgprs, lds, num_warps, llvm_waves)
    return Resources(
        registers=vgprs,
        spills=fields.get("vgpr_spill_count", 0) + fields.get("sgpr_spill_count", 0),
        shared_bytes=lds,
        local_bytes=scratch,
        stack_bytes=0,
        occupancy=occupancy,
        sgprs=fields.get("sgpr_count"),
        warnings=_warnings(target, lds, limits.lds_per_cu, scratch, num_warps, occupancy) + _unknown(target),
    )


def total_vgprs(fields: dict[str, int]) -> int:
    """VGPRs and AGPRs together, as occupancy counts them: the metadata's `.vgpr_count` is that total
    already (LLVM's TotalNumVgprs: on gfx90a and later, whose one file holds both, the VGPRs rounded up
    to 4 plus the AGPRs; on gfx908 the larger of the two), so `.agpr_count` is not added again."""
    return fields["vgpr_count"]


def _unknown(target: Target) -> tuple[str, ...]:
    """Says which of the target's limits are not known, so an occupancy is read for what it is."""
    if not target.unknown:
        return ()
    per_simd = isinstance(target.limits, AmdLimits) and not target.limits.simds_per_cu
    unit = " (per SIMD: the SIMDs per CU are unknown)" if per_simd else ""
    return (f"{target.label}: {', '.join(target.unknown)} unknown; occupancy from LLVM's waves per SIMD{unit}",)


def _warnings(target: Target, shared: int, shared_limit: int | None, local: int, num_warps: int, occupancy: Occupancy):
    warnings = []
    if shared_limit is not None and shared > shared_limit:
        warnings.append(
            f"needs {size(shared)} of shared memory; {target.label} allows {size(shared_limit)} per block: "
            f"launch will fail with an out-of-resources error"
        )
    threads = num_warps * target.warp_size
    if threads > target.limits.max_threads_per_block:
        warnings.append(
            f"{count(num_warps, 'warp')} are {threads} threads; {target.label} allows "
            f"{target.limits.max_threads_per_block} per block: launch will fail"
        )
    if local:
        warnings.append(
            f"uses {local} bytes of local memory and stack per thread (register spills or local arrays): slow"
        )
    if occupancy.blocks_per_sm == 0 and not warnings:
        warnings.append(f"no block fits on a multiprocessor (limited by {occupancy.limited_by}): launch will fail")
    return tuple(warnings)
