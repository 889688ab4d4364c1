"""The layouts a compiled module uses, read from its TTGIR text: each layout alias with the Python
lines whose operations carry it, and each move between registers and shared memory (local_load,
local_store, local_alloc of a value) with the two layouts it joins. A Gluon kernel's aliases are the
layouts its author wrote; a @triton.jit kernel's are those the compiler chose. Triton's own reading
of the layouts (and their bank conflicts) is in triton_api/layouts.py."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.stages import StageMap

_ALIAS = re.compile(r"^(#[\w.]+)\s*=\s*(#(?:ttg|ttng|amdg)?\.?(\w+)(?:<.*>)?)\s*$")
_MEMDESC = re.compile(r"!ttg\.memdesc<((?:\d+x)+)(\w+),\s*(#[\w.]+)[^>]*>")
_TENSOR = re.compile(r"tensor<((?:\d+x)+)(\w+),\s*(#[\w.]+)>")
_ACCESS = re.compile(r"\bttg\.(local_load|local_store|local_alloc)\b")
SHARED_KINDS = ("swizzled_shared", "nvmma_shared", "padded_shared", "shared_linear", "amd_rotating_shared")


@dataclass(frozen=True)
class UsedLayout:
    name: str  # the alias: #blocked1
    kind: str  # blocked, slice, nvidia_mma, swizzled_shared, nvmma_shared, tensor_memory_encoding...
    text: str  # its definition
    python_lines: tuple[int, ...]  # lines of the kernel's file whose operations carry it
    shared: bool


@dataclass(frozen=True)
class SharedAccess:
    """One move between registers and shared memory, with the layouts on each side."""

    ttgir_line: int
    python_lines: tuple[int, ...]
    op: str  # local_load, local_store, local_alloc (of a value)
    tensor_type: str  # tensor<64x64xf32, #blocked>
    memdesc_type: str  # !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    shape: tuple[int, ...]
    bitwidth: int
    conflicts: int | None = None  # Gluon's count (triton_api.layouts.bank_conflicts), once asked


def used_layouts(ttgir: str, line_map: StageMap, kernel_file: str) -> list[UsedLayout]:
    """Every layout alias of the module, with the kernel file's Python lines that use it."""
    lines = ttgir.splitlines()
    found: list[UsedLayout] = []
    for number, text in enumerate(lines, start=1):
        match = _ALIAS.match(text)
        if not match or match.group(3) in ("shared_memory", "loc"):
            continue
        name, definition, kind = match.groups()
        uses = re.compile(re.escape(name) + r"(?![\w.])")
        python: set[int] = set()
        for other, body in enumerate(lines, start=1):
            if other != number and not body.startswith("#") and uses.search(body):
                python.update(n for file, n in line_map.get(other, ()) if file == kernel_file)
        found.append(UsedLayout(name, kind, definition, tuple(sorted(python)), kind in SHARED_KINDS))
    return found


def shared_accesses(ttgir: str, line_map: StageMap, kernel_file: str) -> list[SharedAccess]:
    """Each local_load / local_store (and local_alloc given a value) with its register and shared types."""
    found = []
    for number, text in enumerate(ttgir.splitlines(), start=1):
        op = _ACCESS.search(text)
        memdesc, tensor = _MEMDESC.search(text), _TENSOR.search(text)
        if not op or not memdesc or not tensor:
            continue  # an alloc without a value moves nothing
        shape = tuple(int(d) for d in tensor.group(1).rstrip("x").split("x"))
        python = tuple(sorted({n for file, n in line_map.get(number, ()) if file == kernel_file}))
        found.append(
            SharedAccess(
                number, python, op.group(1), tensor.group(0), memdesc.group(0), shape, bitwidth(tensor.group(2))
            )
        )
    return found


def memdesc_type(line: str) -> tuple[tuple[int, ...], str, str] | None:
    """(shape, the whole type, its layout alias) of the last shared-memory descriptor type on a line."""
    matches = list(_MEMDESC.finditer(line))
    if not matches:
        return None
    last = matches[-1]
    return tuple(int(d) for d in last.group(1).rstrip("x").split("x")), last.group(0), last.group(3)


def bitwidth(element: str) -> int:
    """Bits of an MLIR element type: f32 -> 32, bf16 -> 16, f8E4M3FN -> 8, i1 -> 8 (stored as bytes)."""
    digits = re.search(r"\d+", element)
    return max(int(digits.group()) if digits else 32, 8)
