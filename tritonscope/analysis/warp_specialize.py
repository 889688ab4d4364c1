"""Warp specialization, read from TTGIR: each `ttg.warp_specialize` op's partitions (the default one
and the workers), their warps, their register budgets, and the Python lines each runs. Gluon
kernels write them (`gl.warp_specialize`); @triton.jit kernels get them from the compiler
(`tl.range(..., warp_specialize=True)`), so both read the same."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.stages import StageMap

_OP = re.compile(r"\bttg\.warp_specialize\(")
_REQUESTED = re.compile(r"requestedRegisters = array<i32(?::\s*([\d,\s]+))?>")
_DEFAULT = re.compile(r"^\s*default\s*\{\s*$")
_WORKER = re.compile(r"^\s*partition(\d+)\(.*\)\s+num_warps\((\d+)\)\s*\{\s*$")
_MODULE_WARPS = re.compile(r'"ttg\.num-warps"\s*=\s*(\d+)')
# The register budgets ptxas is told: each partition's warps raise or lower theirs with setmaxnreg.
_SETMAXNREG = re.compile(r"setmaxnreg\.(inc|dec)\.sync\.aligned\.u32\s+(\d+)")


@dataclass(frozen=True)
class Partition:
    name: str  # default, partition0, partition1...
    warps: int
    registers: int | None  # per thread: requested for a worker (worker_num_regs); None if not asked
    python_lines: tuple[int, ...]  # lines of the kernel's file this partition runs
    ttgir_lines: tuple[int, int]  # first and last line of its region


def partitions(ttgir: str, line_map: StageMap, kernel_file: str, ptx: str = "") -> tuple[Partition, ...]:
    """The partitions of every warp_specialize op in the module, in order (default first per op)."""
    lines = ttgir.splitlines()
    warps = _MODULE_WARPS.search(ttgir)
    default_warps = int(warps.group(1)) if warps else 4
    found: list[Partition] = []
    requested: list[int] = []
    index = 0
    while index < len(lines):
        text = lines[index]
        if _OP.search(text):
            match = _REQUESTED.search(text)
            requested = [int(n) for n in match.group(1).split(",")] if match and match.group(1) else []
        head = _DEFAULT.match(text) or _WORKER.match(text)
        if head is None:
            index += 1
            continue
        end = _region_end(lines, index)
        python = tuple(
            sorted({n for line in range(index + 1, end + 2) for f, n in line_map.get(line, ()) if f == kernel_file})
        )
        if head.re is _DEFAULT:
            found.append(Partition("default", default_warps, _default_budget(ptx), python, (index + 1, end + 1)))
        else:
            worker = int(head.group(1))
            budget = requested[worker] if worker < len(requested) else None
            found.append(Partition(f"partition{worker}", int(head.group(2)), budget, python, (index + 1, end + 1)))
        index = end + 1
    return tuple(found)


def _region_end(lines: list[str], start: int) -> int:
    """The index of the line closing the region opened at `start` (braces counted, strings aside)."""
    depth = 0
    for index in range(start, len(lines)):
        text = re.sub(r'"(?:\\.|[^"\\])*"', "", lines[index])
        depth += text.count("{") - text.count("}")
        if depth <= 0 and index > start:
            return index
    return len(lines) - 1


def _default_budget(ptx: str) -> int | None:
    """The default partition's registers: what its warps raise theirs to (setmaxnreg.inc), if they do."""
    raised = [int(n) for kind, n in _SETMAXNREG.findall(ptx) if kind == "inc"]
    return max(raised) if raised else None
