"""Findings that know the target's best instructions: what a Hopper (or Blackwell) expert says first.

- tma-candidate: on sm90+, tiles feeding a dot copied with cp.async (LDGSTS), where the tensor
  memory accelerator (TMA, through tensor descriptors) would copy them without registers or
  per-thread address arithmetic.
- wgmma-waited-at-issue, wgmma-serialized: wgmma.py.
- warp-specialize-not-applied: a loop asks for `warp_specialize=True` and the compiler leaves it
  unlowered for this target (Triton 3.6 lowers it for sm100, not sm90); or, where registers hold
  one block per SM, the constexpr that asks for it, compiled as a what-if.
- dot-not-on-tcgen05: on sm100, a tl.dot lowered to mma.sync instead of the fifth-generation
  tensor cores (sm120 has no tcgen05: mma.sync is its best).
- lds-bypass-candidate: on gfx950 (AMD's counterpart of the TMA finding), a tile feeding MFMA that
  goes global -> registers -> LDS (buffer_load, then ds_write), where gfx950's buffer_load ... lds
  copies 128 bits per lane straight into LDS (Triton 3.6: TRITON_HIP_USE_ASYNC_COPY=1; 3.9: default).
- shared-memory-by-buffer: each shared-memory buffer (size, element type, layout, Python line,
  the stages that multiply it), and which targets and num_stages the total fits, before a launch.

Read from the TTGIR, the per-line machine-code cost and the resources alone, as the other detectors are.
"""

from __future__ import annotations

import ast
import re
import textwrap

from ...core.quantities import size as kib
from ...core.stages import Language
from ...core.targets import TARGETS, NvidiaLimits
from .. import ttgir
from . import stages as pipeline
from .kernel import Kernel
from .kinds import LDS_BYPASS, SHARED_BUFFERS, TCGEN05, TMA, WARP_SPECIALIZE
from .model import Finding, WhatIf

_ALLOC = "ttg.local_alloc"
_COPY = "ttg.async_copy_global_to_local"


def _arch(k: Kernel) -> int:
    """The compute capability (90 for sm90); 0 for a target that has none (AMD's gfx names)."""
    return k.target.arch if isinstance(k.target.arch, int) else 0


# --- which shared buffers an op reads or writes -------------------------------------------------------


def buffers_of(k: Kernel, value: str) -> set[str]:
    """The ttg.local_alloc results a memdesc value is a view of (through indexing, transposes, loops)."""
    allocs = {op.results[0] for op in k.module.ops if op.name == _ALLOC and op.results}
    seen, todo, found = set(), [value], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in allocs:
            found.add(name)
        else:
            todo.extend(k.module.defs.get(name, ()))
    return found


def _dot_buffers(k: Kernel) -> set[str]:
    found: set[str] = set()
    for op in k.module.ops:
        if op.name in ttgir.DOT_OPS:
            for operand in op.operands[:2]:
                found |= buffers_of(k, operand)
    return found


# --- cp.async where TMA would serve -----------------------------------------------------------------


def tma_candidates(k: Kernel) -> list[Finding]:
    if _arch(k) < 90:
        return []
    fed = _dot_buffers(k)
    by_line: dict[int, list[ttgir.Op]] = {}
    for op in k.module.ops:
        lines = k.lines_of(op)
        if op.name == _COPY and lines and len(op.operands) > 1 and buffers_of(k, op.operands[1]) & fed:
            by_line.setdefault(lines[0], []).append(op)
    found = []
    for line, ops in sorted(by_line.items()):
        gathered = any(_gathered(k, op) for op in ops)
        if gathered and _arch(k) < 100:  # rows at loaded indices (vLLM's MoE tokens): no Hopper TMA copies them
            continue
        if _row_bytes(ops[0]) < TMA_ROW_BYTES:  # a scalar, a few elements: no TMA box that narrow
            continue
        cost = k.costs.get(line)
        ldgsts = sum(cost.async_copy_widths.values()) if cost else 0
        shape = ttgir.tensor_shape(ops[0].text) or "?"
        how = (
            "its rows are at indices loaded from memory: a tensor descriptor's gather (desc.gather(rows, col), "
            "sm100 and later) copies them"
            if gathered
            else "load the tile through a tensor descriptor: a host TensorDescriptor "
            "(triton.tools.tensor_descriptor) passed to the kernel, or tl.make_tensor_descriptor in it, then "
            "desc.load([row, col]); out-of-bounds parts arrive as zeros (sample matmul_tma shows it)"
        )
        found.append(
            Finding(
                TMA,
                line,
                f"a {shape} tile feeding tl.dot is copied with cp.async (LDGSTS): each thread computes "
                f"addresses and masks; on {k.target.label} the tensor memory accelerator (TMA) copies a whole "
                "tile from one instruction",
                f"TTGIR line {ops[0].number}: {_COPY} into a buffer that a dot reads; {k.machine} on line "
                f"{line}: {ldgsts} LDGSTS, {cost.tma if cost else 0} UTMALDG",
                how,
            )
        )
    return found


TMA_ROW_BYTES = 16  # a TMA box's inner dimension: 16 bytes at least (CUDA's cuTensorMapEncodeTiled)


def _row_bytes(copy: ttgir.Op) -> int:
    """The bytes of a copied tile's last dimension (its rows), 0 where not read."""
    shape = ttgir.tensor_shape(copy.text)
    bits = ttgir.element_bits(copy.text)
    if not shape or not bits:
        return 0
    return int(shape.split("x")[-2]) * bits // 8 if shape.count("x") >= 1 else 0


def _gathered(k: Kernel, copy: ttgir.Op) -> bool:
    """Whether a copy's addresses are computed from tensors the kernel loaded (a gather's indices; a
    scalar loaded, an expert's id, only moves the tile's base)."""
    loads = ("tt.load", "amdg.buffer_load")
    loaded = {result for op in k.module.ops if op.name in loads and "tensor<" in op.text for result in op.results}
    return bool(k.module.computed_from(copy.operands[0]) & loaded)


# --- warp specialization -----------------------------------------------------------------------------------


def warp_specialize_not_applied(k: Kernel) -> list[Finding]:
    asked = [op for op in k.module.ops if op.name == "scf.for" and "tt.warp_specialize" in _loop_end(k, op)]
    lowered = any(op.name == "ttg.warp_specialize" for op in k.module.ops)
    if asked and not lowered:
        lines = k.lines_of(asked[0])
        line = lines[0] if lines else None
        return [
            Finding(
                WARP_SPECIALIZE,
                line,
                f"the loop asks for warp_specialize=True, and Triton {k.c.triton_version} leaves it unlowered for "
                f"{k.target.label}: every warp still issues loads, waits and math in turn",
                f"TTGIR: the scf.for at line {asked[0].number} keeps the attribute tt.warp_specialize and no "
                "ttg.warp_specialize op (partitions) exists",
                "on this target, overlap comes from more blocks per SM (fewer registers or shared memory per "
                "block) or a newer Triton; the attribute costs nothing where it is ignored",
            )
        ]
    if lowered or k.c.resources.occupancy.blocks_per_sm != 1 or k.c.resources.occupancy.limited_by != "registers":
        return []
    name = _specialize_constexpr(k)
    if name is None or _arch(k) < 90:
        return []
    return [
        Finding(
            WARP_SPECIALIZE,
            None,
            f"registers hold one block per SM; the loop's warp specialization is off ({name}=False)",
            f"{k.c.resources.registers} registers per thread; tl.range(..., warp_specialize={name})",
            f"{name}=True: producer warps issue the loads with few registers (setmaxnreg), consumer warps keep "
            "the rest for the math, and loads overlap it",
            what_if=(WhatIf("constexpr", name, True),),
        )
    ]


def _loop_end(k: Kernel, loop: ttgir.Op) -> str:
    """The text of the line that closes a loop (where MLIR prints its attributes)."""
    ops = k.module.ops
    end = ttgir.region_end(ops, next(i for i, op in enumerate(ops) if op.number == loop.number))
    return ops[end].text if end < len(ops) else ""


def _specialize_constexpr(k: Kernel) -> str | None:
    """A constexpr set to False that the kernel passes as `tl.range(..., warp_specialize=NAME)`."""
    try:
        tree = ast.parse(textwrap.dedent(k.c.kernel.source))
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                value = keyword.value
                if keyword.arg == "warp_specialize" and isinstance(value, ast.Name):
                    if k.c.variant.constexprs.get(value.id) is False:
                        return value.id
    return None


# --- Blackwell's tensor cores -------------------------------------------------------------------------------


def tcgen05(k: Kernel) -> list[Finding]:
    if k.target.arch != 100:
        return []
    found = []
    for op in k.module.ops:
        lines = k.lines_of(op)
        if op.name == "tt.dot" and lines and "nvidia_mma" in _layout_text(k, op):
            shapes = ttgir.tensor_shape(op.text)
            found.append(
                Finding(
                    TCGEN05,
                    lines[0],
                    "tl.dot runs on mma.sync (HMMA), not on sm100's fifth-generation tensor cores (tcgen05.mma, "
                    "accumulating in tensor memory)",
                    f"TTGIR line {op.number}: tt.dot {shapes or ''} with an #nvidia_mma result; no ttng.tc_gen5_mma",
                    "tiles of at least 64 (M) x 8 (N) x 16 (K) elements per dot and num_warps a multiple of 4 let "
                    "Triton choose tcgen05; sm120 has no tcgen05, so there mma.sync is the best",
                )
            )
    return found


def _layout_text(k: Kernel, op: ttgir.Op) -> str:
    typed = ttgir.result_layout_name(op.text)
    return k.module.aliases.get(typed, typed) if typed else ""


# --- shared memory, buffer by buffer --------------------------------------------------------------------------


def shared_buffers(k: Kernel) -> list[Finding]:
    """Only where the total does not fit some NVIDIA target from sm80 on: that is when the breakdown answers
    a question. sm75 (a T4's 64 KiB) is left out: nearly every pipelined tile kernel exceeds it, and the
    kernels this is for are written for Ampere and later."""
    total = k.c.resources.shared_bytes
    reserved = total - k.c.resources.launch_shared_bytes  # held to the limits less it, as Triton holds it
    limits = {
        t.label: t.limits.shared_per_block + reserved
        for t in TARGETS.values()
        if isinstance(t.limits, NvidiaLimits) and int(t.arch) >= 80
    }
    if not total or total <= min(limits.values()):
        return []
    gluon = k.c.kernel.language is Language.GLUON
    stages = pipeline.stages(k)
    buffers = shared_buffer_list(k)
    staged = sum(size for _, _, size, multiplied in buffers if multiplied)
    fits = [name for name, limit in limits.items() if total <= limit]
    over = [f"{name} ({kib(limit - reserved)})" for name, limit in limits.items() if total > limit]
    by_stages = []
    for n in range(stages - 1, 1, -1):
        estimate = total - staged + staged // stages * n
        where = [name for name, limit in limits.items() if estimate <= limit]
        by_stages.append(f"{pipeline.fewer(k, n)[0]}: about {kib(estimate)}, fits {', '.join(where) or 'none'}")
    listed = "; ".join(text for _, text, _, _ in sorted(buffers, key=lambda b: -b[2]))
    return [
        Finding(
            SHARED_BUFFERS,
            max(buffers, key=lambda b: b[2])[0] if buffers else None,
            f"{kib(total)} of shared memory per block as compiled for {k.target.label}: fits "
            f"{', '.join(fits) or 'no NVIDIA target'}; too much for {', '.join(over)}, if their compiles kept "
            "these buffers (each target's pipeliner lays out its own: `fit` compiles for each)",
            f"buffers in TTGIR: {listed or 'none'}; the rest (barriers, conversion scratch) is under 1 KiB each",
            "; ".join(by_stages)
            or (
                "fewer or smaller gl.allocate_shared_memory buffers: a multi-buffered one holds its leading "
                "dimension's copies of a block"
                if gluon
                else "smaller tiles: each pipelined buffer holds num_stages copies of one tile"
            ),
            what_if=pipeline.fewer(k, stages - 1)[1] if stages > 1 else (),
        )
    ]


def shared_buffer_list(k: Kernel) -> list[tuple[int | None, str, int, bool]]:
    """(line, description, bytes, multiplied by num_stages) of each shared buffer of 1 KiB or more, in
    TTGIR order: what this finding lists, and what `fit` shows where shared memory is over a limit."""
    stages = pipeline.stages(k)
    allocs = [op for op in k.module.ops if op.name == _ALLOC and (ttgir.memdesc_bytes(op.text) or ("", 0))[1] >= 1024]
    return [_buffer(k, op, stages) for op in allocs]


def _buffer(k: Kernel, op: ttgir.Op, stages: int) -> tuple[int | None, str, int, bool]:
    """(line, description, bytes, multiplied by num_stages) of one ttg.local_alloc."""
    shape, size = ttgir.memdesc_bytes(op.text) or ("?", 0)
    dims = ttgir.memdesc_dims(op.text) or []
    lines = k.lines_of(op)
    multiplied = len(dims) >= 3 and dims[0] == stages and stages > 1
    layout = _shared_layout(k, op.text)
    where = f"line {lines[0]}" if lines else "no line"
    times = f" ({stages} stages x {kib(size // stages)})" if multiplied else ""
    return lines[0] if lines else None, f"{where}: {shape}, {layout} = {kib(size)}{times}", size, multiplied


def _shared_layout(k: Kernel, text: str) -> str:
    """A buffer's shared layout in a few words: `nvmma_shared swizzle 128`, `swizzled_shared vec 8`."""
    match = re.search(r"!ttg\.memdesc<[^,]+,\s*(#[\w.]+)", text)
    layout = k.module.aliases.get(match.group(1), match.group(1)) if match else ""
    kind = re.match(r"#ttg\.(\w+)", layout)
    swizzle = re.search(r"swizzlingByteWidth = (\d+)", layout)
    vec = re.search(r"vec = (\d+)", layout)
    words = kind.group(1) if kind else "layout ?"
    if swizzle:
        words += f" swizzle {swizzle.group(1)}"
    elif vec:
        words += f" vec {vec.group(1)}"
    return words


# --- AMD: tiles for MFMA through the registers -----------------------------------------------------------


def lds_bypass(k: Kernel) -> list[Finding]:
    """On gfx950 only: gfx942's direct-to-LDS loads move 32 bits per lane, so there it is no clear gain."""
    if k.target.arch != "gfx950":
        return []
    fed, made_by = _dot_buffers(k), k.module.producers
    by_line: dict[int, list[tuple[ttgir.Op, ttgir.Op]]] = {}  # the pipeliner's copies of one load, together
    for store in k.module.ops:
        if store.name != "ttg.local_store" or len(store.operands) < 2 or not buffers_of(k, store.operands[1]) & fed:
            continue
        load = made_by.get(store.operands[0])
        lines = k.lines_of(load) if load else []
        if load is not None and load.name in ("amdg.buffer_load", "tt.load") and lines:
            by_line.setdefault(lines[0], []).append((load, store))
    found = []
    for line, pairs in sorted(by_line.items()):
        load, store = pairs[0]
        cost = k.costs.get(line)
        loads = sum(cost.instructions.global_loads.values()) if cost else 0
        found.append(
            Finding(
                LDS_BYPASS,
                line,
                f"a {ttgir.tensor_shape(load.text) or '?'} tile feeding the MFMA dot is loaded into registers and "
                "written to LDS by every lane; gfx950 loads it straight into LDS (buffer_load ... lds), with "
                "no registers and no ds_write",
                f"TTGIR line {load.number}: {load.name}, then line {store.number}: ttg.local_store into a buffer "
                f"that a dot reads ({len(pairs)} such loads in the pipeline); {k.machine} on line {line}: {loads} "
                "buffer/global loads to registers",
                "compile with TRITON_HIP_USE_ASYNC_COPY=1 (Triton 3.6's switch; Triton 3.9 does it by default): "
                "the tile becomes amdg.buffer_load_to_local, 128 bits per lane straight into LDS",
            )
        )
    return found
