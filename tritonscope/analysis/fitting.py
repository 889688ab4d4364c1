"""Whether a compiled kernel launches on a target: the checks Triton's launcher and the driver make.

Triton (3.6, `CompiledKernel._init_handles`) raises OutOfResources at a kernel's first launch when
  - its shared memory is over the device's `max_shared_mem` (NVIDIA's opt-in maximum per block,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN; AMD's hipDeviceAttributeMaxSharedMemoryPerBlock):
    the targets table's `Target.shared_limit`;
  - its tensor memory is over 512 columns (Blackwell's; Triton's own constant);
  - its threads are more than the driver lets the function have (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    the block limit, fewer where each thread's registers leave the register file short: occupancy's
    "registers" limit at zero blocks, analysis/resources.py).
Spills launch (slowly): they, and any other figure, fail only a budget the user sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.errors import UsageError
from ..core.model import Budget, Resources
from ..core.quantities import count, percentage, size
from ..core.targets import Target

FITS, NO_FIT, UNKNOWN = "fits", "does not fit", "unknown"
TENSOR_MEMORY_COLUMNS = 512  # Triton's check (compiler.py): "Use blackwell max tmem size for now"
# The figures a fit budget may hold: the ones read without the machine code.
BUDGETED = ("registers", "spills", "local_bytes", "shared", "occupancy")


@dataclass(frozen=True)
class Verdict:
    verdict: str  # FITS, NO_FIT or UNKNOWN (a limit the table does not know)
    reason: str  # one line: the figures, or the limit and the figure against it
    limit: str | None = None  # what does not fit: shared memory, tensor memory, threads, registers, a budget


def figures(resources: Resources) -> dict[str, Any]:
    """The figures a fit shows and budgets hold, by check's names."""
    occupancy = resources.occupancy
    return {
        "registers": resources.registers,
        "spills": resources.spills,
        "local_bytes": resources.local_bytes + resources.stack_bytes,
        "shared": resources.shared_bytes,
        "launch_shared": resources.launch_shared_bytes,  # what Triton holds to the limit (no reserved KiB)
        "occupancy": round(occupancy.percent, 1),
        "blocks_per_sm": occupancy.blocks_per_sm,
        "limited_by": occupancy.limited_by,
    }


def checked_budgets(budgets: tuple[Budget, ...]) -> tuple[Budget, ...]:
    """The budgets, refused at once where one names a figure a fit does not read."""
    for budget in budgets:
        if budget.figure not in BUDGETED:
            raise UsageError(f"--budget {budget.text}: fit holds {', '.join(BUDGETED)}, not {budget.figure}")
    return budgets


def judge(
    target: Target, resources: Resources, num_warps: int, tmem_columns: int | None, budgets: tuple[Budget, ...] = ()
) -> Verdict:
    """The verdict on one compile for its target: the first limit it breaks, else the budgets, else fits."""
    broken = _launch_failure(target, resources, num_warps, tmem_columns)
    if broken is not None:
        return broken
    values = figures(resources)
    for budget in budgets:
        if not budget.holds(values[budget.figure]):
            return Verdict(NO_FIT, f"{budget.figure} {values[budget.figure]:g}: over --budget {budget.text}", "budget")
    held = _fits_line(target, resources)
    if target.shared_limit is None:
        return Verdict(UNKNOWN, f"{target.label}'s {target.vendor.words.shared} per block is unknown; {held}")
    return Verdict(FITS, held)


def _launch_failure(target: Target, r: Resources, num_warps: int, tmem_columns: int | None) -> Verdict | None:
    limit, shared = target.shared_limit, target.vendor.words.shared
    if limit is not None and r.launch_shared_bytes > limit:
        return Verdict(NO_FIT, f"{shared} {size(r.launch_shared_bytes)} > {size(limit)} per block", "shared memory")
    if tmem_columns is not None and tmem_columns > TENSOR_MEMORY_COLUMNS:
        return Verdict(NO_FIT, f"tensor memory {tmem_columns} > {TENSOR_MEMORY_COLUMNS} columns", "tensor memory")
    threads = num_warps * target.warp_size
    if threads > target.limits.max_threads_per_block:
        return Verdict(NO_FIT, f"{threads} threads > {target.limits.max_threads_per_block} per block", "threads")
    if r.occupancy.blocks_per_sm == 0 and r.occupancy.limited_by == "registers":
        return Verdict(
            NO_FIT, f"{r.registers} registers x {threads} threads: over the register file of a block", "registers"
        )
    return None


def _fits_line(target: Target, r: Resources) -> str:
    words = target.vendor.words
    return (
        f"{r.registers} {words.registers}, {count(r.spills, 'spill')}, {size(r.shared_bytes)} {words.shared}, "
        f"{count(r.occupancy.blocks_per_sm, 'block')} per {words.multiprocessor} ({percentage(r.occupancy.percent)})"
    )
