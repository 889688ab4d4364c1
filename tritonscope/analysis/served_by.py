"""Which level of the memory hierarchy serves a kernel's loads, as far as the compile shows it.

A global load goes to DRAM unless the compile shows its data is already on chip: the line reads
only pointer arguments that an earlier line loaded (a second pass over a row: layernorm's three
loops over X); its addresses do not depend on the program id (every program reads the same
weights); or it is a tile of a matrix product (it feeds tl.dot), which every program along the
output's other dimension reads too (a GEMM's A tile by each column block of C, attention's K and
V by each query block). Those are served by the L2 (50 MB on an H100). Local memory (a stack frame, spills) is
served by the L1 while the resident threads' frames fit beside the blocks' shared memory, else by
the L2.
"""

from __future__ import annotations

import re

from ..core.model import Compilation
from ..core.stages import Stage
from . import ttgir
from .latencies import Costs

_LOADS = ("tt.load", "ttg.async_copy_global_to_local")
_FOR = re.compile(r"scf\.for\s+(%[\w#.]+)\s*=\s*(%[\w#.]+)\s+to\s+(%[\w#.]+)\s+step\s+(%[\w#.]+)")
READ_BEFORE = "read before"
SHARED_BY_PROGRAMS = "the same for every program"
DOT_TILE = "a matrix product's tile, read by other programs too"


def cached_loads(c: Compilation) -> dict[int, str]:
    """{kernel-file line: why the L2 serves its global loads} (module docstring)."""
    module = ttgir.read(c.stages.get(Stage.TTGIR, ""))
    stage_map = c.line_map.get(Stage.TTGIR, {})
    made_by = {result: op.name for op in module.ops for result in op.results}
    bounds = {m.group(1): m.group(2, 3, 4) for op in module.ops if (m := _FOR.search(op.text))}
    first: dict[str, int] = {}  # pointer argument -> the line that loaded it first
    found: dict[int, str] = {}
    cone = _dot_cone(module)
    for op in module.ops:
        if op.name not in _LOADS or "tensor<" not in op.text:
            continue
        lines = [n for f, n in stage_map.get(op.number, ()) if f == c.kernel.file]
        addresses = ttgir.access_operands(op)[0]
        pointers = {n for v in addresses for n in module.reaching(v) if _is_pointer(c, n)}
        if not lines or not pointers:
            continue
        if all(first.get(p, lines[0]) != lines[0] for p in pointers):
            found[lines[0]] = READ_BEFORE
        elif not any(_reaches_program_id(module, made_by, bounds, v) for v in addresses):
            found.setdefault(lines[0], SHARED_BY_PROGRAMS)
        elif _feeds_dot(module, made_by, cone, op):
            found.setdefault(lines[0], DOT_TILE)
        for pointer in pointers:
            first.setdefault(pointer, lines[0])
    return found


def _is_pointer(c: Compilation, name: str) -> bool:
    return str(c.variant.signature.get(name, "")).startswith("*")


def _reaches_program_id(module: ttgir.Module, made_by: dict[str, str], bounds: dict, value: str) -> bool:
    """Whether a value is computed from the program id: through ops, loop-carried values, and a
    loop's induction variable through its bounds."""
    seen, todo = set(), [value]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if made_by.get(name) == "tt.get_program_id":
            return True
        todo.extend(module.defs.get(name, ()))
        todo.extend(bounds.get(name, ()))
    return False


def _dot_cone(module: ttgir.Module) -> set[str]:
    """Every value a matrix product's operands are computed from (through shared-memory buffers)."""
    operands = [operand for op in module.ops if op.name in ttgir.DOT_OPS for operand in op.operands[:2]]
    return module.computed_from(*operands)


def _feeds_dot(module: ttgir.Module, made_by: dict[str, str], cone: set[str], op: ttgir.Op) -> bool:
    """A tt.load whose result a dot reads, or an async copy into a buffer (a local_alloc) a dot reads."""
    if op.name == "tt.load":
        return any(result in cone for result in op.results)
    seen, todo = set(), list(op.operands[1:2])
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if made_by.get(name) == "ttg.local_alloc":
            return name in cone
        todo.extend(module.defs.get(name, ()))
    return False


def spills_past_l1(c: Compilation, costs: Costs) -> bool:
    """Whether the resident threads' local memory (stack frame and spills) is more than the L1 left
    beside the blocks' shared memory holds: its loads then come from the L2."""
    r = c.resources
    threads = r.occupancy.warps_per_sm * 32
    l1 = costs.l1_and_shared_bytes - r.occupancy.blocks_per_sm * r.shared_bytes
    return max(r.local_bytes, r.stack_bytes) * threads > l1
