"""Warp specialization, read from TTGIR: each `ttg.warp_specialize` op's partitions (the default one
and the workers), their warps, their register budgets, and the Python lines each runs. Gluon
kernels write them (`gl.warp_specialize`); @triton.jit kernels get them from the compiler
(`tl.range(..., warp_specialize=True)`), so both read the same."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..core.stages import StageMap

_OP = re.compile(r"\bttg\.warp_specialize\(")
_REQUESTED = re.compile(r"requestedRegisters = array<i32(?::\s*([\d,\s]+))?>")
_DEFAULT = re.compile(r"^\s*default\s*\{\s*$")
_WORKER = re.compile(r"^\s*partition(\d+)\(.*\)\s+num_warps\((\d+)\)\s*\{\s*$")
_MODULE_WARPS = re.compile(r'"ttg\.num-warps"\s*=\s*(\d+)')
_MODULE_MAXNREG = re.compile(r'"?ttg\.maxnreg"?\s*=\s*(\d+)')
_PTX_MAXNREG = re.compile(r"^\s*\.maxnreg\s+(\d+)", re.MULTILINE)
# Each partition's warps raise or lower their registers with setmaxnreg as they enter it.
_SETMAXNREG = re.compile(r"setmaxnreg\.(inc|dec)\.sync\.aligned\.u32\s+(\d+)")
REGISTERS_PER_SM = 65536  # every NVIDIA target tritonscope knows


def module_warps(ttgir: str) -> int | None:
    """The warps the module was compiled for (`ttg.num-warps`): the launch's num_warps, where the
    metadata's counts a warp-specialized kernel's worker partitions too."""
    found = _MODULE_WARPS.search(ttgir)
    return int(found.group(1)) if found else None


@dataclass(frozen=True)
class Partition:
    name: str  # default, partition0, partition1...
    warps: int
    # Per thread while the partition runs, as setmaxnreg sets them; None where Triton reallocates
    # none (no worker asked, or the asks do not fit): then every warp keeps the launch's.
    registers: int | None
    requested: int | None  # a worker's worker_num_regs; None for the default partition
    python_lines: tuple[int, ...]  # lines of the kernel's file this partition runs
    ttgir_lines: tuple[int, int]  # first and last line of its region


def partitions(ttgir: str, line_map: StageMap, kernel_file: str, ptx: str = "") -> tuple[Partition, ...]:
    """The partitions of every warp_specialize op in the module, in order (default first per op)."""
    lines = ttgir.splitlines()
    default_warps = module_warps(ttgir) or 4
    ops: list[list[Partition]] = []  # the partitions of each warp_specialize op
    requested: list[int] = []
    index = 0
    while index < len(lines):
        text = lines[index]
        if _OP.search(text):
            match = _REQUESTED.search(text)
            requested = [int(n) for n in match.group(1).split(",")] if match and match.group(1) else []
            ops.append([])
        head = _DEFAULT.match(text) or _WORKER.match(text)
        if head is None or not ops:
            index += 1
            continue
        end = _region_end(lines, index)
        python = tuple(
            sorted({n for line in range(index + 1, end + 2) for f, n in line_map.get(line, ()) if f == kernel_file})
        )
        if head.re is _DEFAULT:
            ops[-1].append(Partition("default", default_warps, None, None, python, (index + 1, end + 1)))
        else:
            worker = int(head.group(1))
            asked = requested[worker] if worker < len(requested) else None
            region = (index + 1, end + 1)
            ops[-1].append(Partition(f"partition{worker}", int(head.group(2)), None, asked, python, region))
        index = end + 1
    # Registers are reallocated only where the PTX says so (setmaxnreg), with the budgets below.
    if not _SETMAXNREG.search(ptx):
        return tuple(p for op in ops for p in op)
    extra_groups = _extra_groups(ops)
    maxnreg = _maxnreg(ttgir, ptx, default_warps + 4 * extra_groups)
    return tuple(p for op in ops for p in _allotted(op, default_warps, extra_groups, maxnreg))


def _maxnreg(ttgir: str, ptx: str, total_warps: int) -> int:
    """The registers every thread launches with: the kernel's maxnreg, else all 64K shared out."""
    for pattern, text in ((_PTX_MAXNREG, ptx), (_MODULE_MAXNREG, ttgir)):
        if match := pattern.search(text):
            return int(match.group(1))
    return REGISTERS_PER_SM // total_warps // 32 // 8 * 8


def _allotted(op: list[Partition], default_warps: int, extra_groups: int, maxnreg: int) -> list[Partition]:
    """The registers per thread of each partition while it runs, as Triton's AllocateWarpGroups pass
    (Triton 3.5 to 3.9) gives them and setmaxnreg sets them: a warp group takes the most any of its
    partitions asked (rounded up to 8); the default partition gets what is left of maxnreg x every
    thread, rounded down to 8; setmaxnreg sets at most 256. Where a worker asked nothing, or the
    asks leave the default fewer than 24, nothing is reallocated."""
    workers = op[1:]
    if not workers or any(w.requested is None for w in workers):
        return op
    groups, group_of = _warp_groups(workers, default_warps, extra_groups)
    budget = maxnreg * default_warps * 32 + sum((maxnreg - regs) * warps * 32 for warps, regs in groups)
    left = budget // (default_warps * 32) // 8 * 8 if budget > 0 else 0
    if left < 24:
        return op
    allotted = [min(256, left)] + [min(256, groups[g][1]) for g in group_of]
    return [replace(p, registers=r) for p, r in zip(op, allotted, strict=True)]


def _warp_groups(workers: list[Partition], default_warps: int, extra_groups: int):
    """The workers' warp groups as [warps, registers asked], and each worker's group. Triton pads
    the workers with do-nothing partitions (asking 16) to whole warp groups and lays them out
    largest first after the default's warps; a group starts at each warp id divisible by 4."""
    sizes = [(w.warps, w.requested or 0) for w in workers]
    padding = extra_groups * 4 - sum(w.warps for w in workers)
    while padding > 0:
        size = 1 << (padding.bit_length() - 1)  # llvm::NextPowerOf2(padding) / 2
        sizes.append((size, 16))
        padding -= size
    groups: list[list[int]] = []
    group_of = [0] * len(sizes)
    start = default_warps
    for i in sorted(range(len(sizes)), key=lambda i: -sizes[i][0]):
        if start % 4 == 0 or not groups:
            groups.append([0, 0])
        warps, asked = sizes[i]
        groups[-1][0] += warps
        groups[-1][1] = max(groups[-1][1], -(-asked // 8) * 8)
        group_of[i] = len(groups) - 1
        start += warps
    return groups, group_of[: len(workers)]


def held_by_op(partitions: tuple[Partition, ...]) -> list[tuple[tuple[Partition, ...], int | None]]:
    """Each warp_specialize op's partitions (default first) with the registers they hold together
    while they run: the default's warps at its budget, and every warp of the workers' warp groups,
    padding warps included, at its group's; None where nothing is reallocated."""
    ops = _by_op(partitions)
    extra_groups = _extra_groups(ops)
    held: list[tuple[tuple[Partition, ...], int | None]] = []
    for op in ops:
        if len(op) < 2 or any(p.registers is None for p in op):
            held.append((op, None))
            continue
        groups, _ = _warp_groups(list(op[1:]), op[0].warps, extra_groups)
        default = op[0].warps * 32 * (op[0].registers or 0)
        held.append((op, default + sum(warps * 32 * min(256, regs) for warps, regs in groups)))
    return held


def _by_op(partitions: tuple[Partition, ...]) -> list[tuple[Partition, ...]]:
    """The module's partitions split by warp_specialize op: each op's default partition opens it."""
    ops: list[list[Partition]] = []
    for p in partitions:
        if p.name == "default" or not ops:
            ops.append([])
        ops[-1].append(p)
    return [tuple(op) for op in ops]


def _extra_groups(ops) -> int:
    """The warp groups Triton adds for the workers: the most any op needs, every op padded to it."""
    return max((-(-sum(p.warps for p in op[1:]) // 4) for op in ops), default=0)


def _region_end(lines: list[str], start: int) -> int:
    """The index of the line closing the region opened at `start` (braces counted, strings aside)."""
    depth = 0
    for index in range(start, len(lines)):
        text = re.sub(r'"(?:\\.|[^"\\])*"', "", lines[index])
        depth += text.count("{") - text.count("}")
        if depth <= 0 and index > start:
            return index
    return len(lines) - 1
