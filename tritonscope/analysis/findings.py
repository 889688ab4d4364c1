"""Why a kernel is slow: findings, each naming its Python line, the evidence in the IR or machine
code, the cause, and what to try.

Read from a Compilation and its per-line cost (cost.py) alone, so every finding is the
compiler's own output explained. A finding may carry a `what_if`: the change to the request
that its suggestion amounts to; `tritonscope explain` compiles it and says what it gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Any, Literal, NamedTuple

from ..core.model import Compilation
from ..core.stages import Stage
from ..core.targets import NvidiaLimits, Target
from . import ttgir
from .cost import LineCost
from .layouts import tensor_type
from .resources import nvidia_occupancy

NARROW = "narrow-global-access"
UNCOALESCED = "uncoalesced-access"
CONVERSION = "layout-conversion"
MATRIX = "dot-without-best-matrix-instructions"
SPILLS = "spills"
OCCUPANCY = "occupancy"
SHARED_LIMIT = "shared-memory-over-limit"
NOT_PIPELINED = "loop-not-pipelined"
REMARK = "remark"  # an MLIR remark (or warning) of Triton's compiler that no other finding explains


class WhatIf(NamedTuple):
    """One change to the request that a finding's suggestion amounts to; app/explain.py compiles it.

    A typed tuple: it is hashable (what-ifs shared by findings are compiled once) and reads as
    the (what, name, value) it is."""

    what: Literal["option", "arg", "constexpr"]  # option: num_warps, num_stages, maxnreg, specialize
    name: str
    value: Any  # None: drop the option


class Cause(Enum):
    """Why Triton cannot make an access wider: what the advice is chosen by."""

    UNSPECIALIZED = "unspecialized"  # a value the launcher would specialize (1, a multiple of 16), left unhinted
    NOT_MULTIPLE_OF_16 = "not-multiple-of-16"  # a size or stride with no divisibility by 16
    UNALIGNED = "unaligned"  # a pointer not known to be 16-byte aligned
    GIVEN_AS_TYPE = "given-as-type"  # an argument given as a type: nothing is known of its value
    LAYOUT = "layout"  # each thread holds fewer than 128 contiguous bits


@dataclass(frozen=True)
class Finding:
    kind: str
    line: int | None  # in the kernel's own file; None when it is the kernel's as a whole
    message: str
    evidence: str
    suggestion: str
    lines: tuple[int, ...] = ()  # every line it concerns (the spilling lines), `line` first
    what_if: tuple[WhatIf, ...] = ()  # the request changes the suggestion amounts to
    verified: str = ""  # what compiling `what_if` gave
    remarks: tuple[str, ...] = ()  # the MLIR remarks of Triton's compiler on its line that it explains


@dataclass(frozen=True)
class _Kernel:
    """What the detectors share: the compilation, its TTGIR read as ops, its cost by line."""

    c: Compilation
    target: Target
    module: ttgir.Module
    costs: dict[int, LineCost]

    def lines_of(self, op: ttgir.Op) -> list[int]:
        """The kernel-file lines of a TTGIR op, the innermost (a helper's own) first."""
        return self.lines_of_number(op.number)

    def lines_of_number(self, number: int) -> list[int]:
        sources = self.c.line_map.get(Stage.TTGIR, {}).get(number, ())
        return list(dict.fromkeys(line for file, line in sources if file == self.c.kernel.file))

    @property
    def machine(self) -> str:
        return self.target.vendor.machine_code.title


def find(c: Compilation, costs: tuple[LineCost, ...]) -> tuple[Finding, ...]:
    kernel = _Kernel(c, c.variant.target_info, ttgir.read(c.stages.get(Stage.TTGIR, "")), {x.line: x for x in costs})
    from . import target_findings  # imports this module: loaded when first used

    found: list[Finding] = list(target_findings.find(kernel))
    for detector in (_shared_limit, _spills, _narrow, _uncoalesced, _matrix, _conversions, _not_pipelined, _occupancy):
        found += detector(kernel)
    return tuple(_with_remarks(kernel, found))


def what_if_flags(what_if: tuple[WhatIf, ...]) -> str:
    """A what-if as the command-line flags that ask for it."""
    words = []
    for what, name, value in what_if:
        if what == "option" and value is None:
            words.append(f"without --{name}")
        elif what == "option" and name == "specialize":
            words.append("with specialization")
        elif what == "option":
            words.append(f"--{name.replace('_', '-')} {value}")
        else:
            words.append(f"-{'c' if what == 'constexpr' else 'a'} {name}={value}")
    return " ".join(words)


# --- global access width ------------------------------------------------------------------------


def line_widths(cost: LineCost) -> dict[int, int]:
    """Bits per thread -> count, of a line's global loads, stores and asynchronous copies."""
    widths: dict[int, int] = {}
    for counts in (cost.instructions.global_loads, cost.instructions.global_stores, cost.async_copy_widths):
        for width, count in counts.items():
            widths[width] = widths.get(width, 0) + count
    return widths


def _accesses(k: _Kernel) -> dict[int, list[ttgir.Op]]:
    """Tensor loads, stores and async copies by their innermost kernel-file line."""
    found: dict[int, list[ttgir.Op]] = {}
    for op in k.module.ops:
        lines = k.lines_of(op)
        if op.name in ttgir.MEMORY_OPS and "tensor<" in op.text and lines:
            found.setdefault(lines[0], []).append(op)
    return found


_WHY = {
    "pointer": "that each thread's neighbouring elements are 16-byte aligned",
    "mask": "that each thread's neighbouring elements are all inside or all outside the mask",
}


def _narrow(k: _Kernel) -> list[Finding]:
    found = []
    for line, ops in sorted(_accesses(k).items()):
        cost = k.costs.get(line)
        widths = line_widths(cost) if cost else {}
        narrow = sorted(w for w in widths if w < 128)
        if not narrow:
            continue
        causes: dict[tuple[str, str], tuple[Cause, WhatIf | None]] = {}  # (role, reason) -> (cause, its fix)
        for op in ops:
            for role, cause, reason, change in _causes(k, op):
                causes.setdefault((role, reason), (cause, change))
        what_if = tuple(dict.fromkeys(change for _, change in causes.values() if change))
        counts = ", ".join(f"{n} x {w}-bit" for w, n in sorted(widths.items(), reverse=True))
        found.append(
            Finding(
                NARROW,
                line,
                f"global memory accesses of {narrow[0]} bits per thread, not 128" + _because(list(causes)),
                f"{k.machine} on line {line}: {counts}; TTGIR: " + "; ".join(_layout_note(k, op) for op in ops),
                _narrow_advice([cause for cause, _ in causes.values()]),
                what_if=what_if,
            )
        )
    return found


def _because(causes: list[tuple[str, str]]) -> str:
    """`: Triton cannot prove that ... (reasons); nor that ... (reasons)`, the layout's reason as it is."""
    parts = []
    for role in ("pointer", "mask"):
        reasons = [reason for r, reason in causes if r == role]
        if reasons:
            parts.append(f"{_WHY[role]} ({'; '.join(reasons)})")
    text = ("Triton cannot prove " + "; nor ".join(parts)) if parts else ""
    layout = [reason for r, reason in causes if r == "layout"]
    return f": {'; '.join([text, *layout] if text else layout)}" if parts or layout else ""


def _layout_note(k: _Kernel, op: ttgir.Op) -> str:
    info = _per_thread(k, op)
    if info is None:
        typed = _access_type(op)
        if typed is None:
            return f"{op.name} (line {op.number})"
        shape = "x".join(map(str, typed[0]))
        return f"{op.name} of {shape}x{ttgir.element_name(op.text)} in {typed[1]} (line {op.number})"
    contiguous, bits, dim, shape = info
    return (
        f"{op.name} of {'x'.join(map(str, shape))}x{ttgir.element_name(op.text)} (line {op.number}), "
        f"{contiguous} contiguous element(s) per thread along dim {dim} = {contiguous * bits} bits"
    )


def _access_type(op: ttgir.Op) -> tuple[tuple[int, ...], str] | None:
    """The shape and layout of the tensor an access moves: its operands' (a tt.load's pointers, a store's
    values), else its result's (since 3.9 `amdg.buffer_load ... : !tt.ptr<f32> -> tensor<1024xf32, ...>`)."""
    return tensor_type(op.text.split("->")[0]) or tensor_type(op.text)


def _per_thread(k: _Kernel, op: ttgir.Op) -> tuple[int, int, int, tuple[int, ...]] | None:
    """(contiguous elements each thread holds along the fastest dim, element bits, that dim, shape)."""
    typed = _access_type(op)
    bits = ttgir.element_bits(op.text)
    layout = k.module.layout(typed[1]) if typed else None
    if typed is None or bits is None or layout is None or layout.kind != "blocked":
        return None
    order, size = layout.fields.get("order"), layout.fields.get("sizePerThread")
    if not order or not size:
        return None
    return size[order[0]], bits, order[0], typed[0]


def _causes(k: _Kernel, op: ttgir.Op) -> list[tuple[str, Cause, str, WhatIf | None]]:
    """Why an access cannot be wider, as (role, cause, reason, request change): the arguments its pointer and
    its mask are computed from that Triton knows no divisibility of, else the layout."""
    v = k.c.variant
    causes = []
    pointers, mask = ttgir.access_operands(op)
    reached = [(name, "pointer") for name in sorted(set().union(*(k.module.reaching(p) for p in pointers)))]
    reached += [(name, "mask") for name in sorted(k.module.reaching(mask))] if mask else []
    for name, role in reached:
        if "D" in v.hints.get(name, "") or v.signature.get(name) in (None, "constexpr"):
            continue
        causes.append((role, *_unknown(name, v)))
    info = _per_thread(k, op)
    if info is not None and not causes and info[0] * info[1] < 128:
        contiguous, bits, dim, _ = info
        reason = (
            f"each thread holds only {contiguous} contiguous {ttgir.element_name(op.text)} along dim {dim} "
            f"({contiguous * bits} bits; 128 needs {128 // bits})"
        )
        causes.append(("layout", Cause.LAYOUT, reason, None))
    return causes


def _unknown(name: str, v) -> tuple[Cause, str, WhatIf | None]:
    """Why Triton knows no divisibility of an argument, and the request change that would tell it."""
    value = v.arguments.get(name)
    specialize = WhatIf("option", "specialize", True) if not v.specialize else None
    unspecialized = "--no-specialize" if not v.specialize else "do_not_specialize"
    if v.signature[name].startswith("*"):
        return Cause.UNALIGNED, f"{name} is not known to be 16-byte aligned", specialize
    if not isinstance(value, int) or isinstance(value, bool):
        return Cause.GIVEN_AS_TYPE, f"{name} is given as a type, so nothing is known of it", None
    if value == 1:
        return Cause.UNSPECIALIZED, f"{name}=1 is not specialized to the constant 1 under {unspecialized}", specialize
    if value % 16 == 0:
        reason = f"{name}={value} is a multiple of 16 but has no hint under {unspecialized}"
        return Cause.UNSPECIALIZED, reason, specialize
    rounded = WhatIf("arg", name, -(-value // 16) * 16)
    return Cause.NOT_MULTIPLE_OF_16, f"{name}={value} is not a multiple of 16: no divisibility hint", rounded


def _narrow_advice(causes: list[Cause]) -> str:
    if Cause.UNSPECIALIZED in causes:
        return "let the launcher specialize the arguments (drop --no-specialize / do_not_specialize)"
    if Cause.NOT_MULTIPLE_OF_16 in causes:
        return (
            "launch with sizes and strides that are multiples of 16 (pad the buffers and round the size up); "
            "the launcher then gives them the divisibility hint and the accesses widen to 128 bits"
        )
    if Cause.UNALIGNED in causes:
        return "pass pointers aligned to 16 bytes (torch's allocations are), so the launcher marks them"
    if Cause.GIVEN_AS_TYPE in causes:
        return "give the argument's value with -a NAME=VALUE, as at a real launch"
    return "give each thread at least 128 contiguous bits: a larger BLOCK along the contiguous dimension, fewer warps"


# --- coalescing -------------------------------------------------------------------------------


def _uncoalesced(k: _Kernel) -> list[Finding]:
    """A stride of 1 at launch that Triton was not told (no specialization): it cannot know which
    dimension is contiguous, and lays the access out as if the last one were."""
    v = k.c.variant
    found = []
    for line, ops in sorted(_accesses(k).items()):
        unit = sorted(
            name
            for op in ops
            for pointer in ttgir.access_operands(op)[0]
            for name in k.module.reaching(pointer)
            if v.arguments.get(name) == 1 and v.signature.get(name, "").startswith("i")
        )
        if not unit:
            continue
        names = ", ".join(dict.fromkeys(unit))
        found.append(
            Finding(
                UNCOALESCED,
                line,
                f"{names} is 1 at launch but not specialized: Triton does not know which dimension is contiguous",
                f"TTGIR: {ops[0].name} (line {ops[0].number}) computes its pointers from {names} as a runtime "
                f"value; {_layout_note(k, ops[0])}",
                "let the launcher specialize it (drop --no-specialize / do_not_specialize), or make it a constexpr",
                what_if=(WhatIf("option", "specialize", True),) if not v.specialize else (),
            )
        )
    return found


# --- spills, shared memory, occupancy -------------------------------------------------------------


def _spills(k: _Kernel) -> list[Finding]:
    r = k.c.resources
    if r.spills <= 0 and not r.spill_store_bytes:
        return []
    local = sorted(
        (c for c in k.costs.values() if c.instructions.local_loads + c.instructions.local_stores),
        key=lambda c: -(c.instructions.local_loads + c.instructions.local_stores),
    )
    where = ", ".join(f"{c.line} ({c.instructions.local_loads}/{c.instructions.local_stores})" for c in local[:6])
    words = k.target.vendor.words
    evidence = f"{r.stack_bytes + r.local_bytes} B of {words.local} per thread"
    if r.spill_store_bytes:
        evidence += f"; ptxas: {r.spill_store_bytes} B stored and {r.spill_load_bytes} B loaded per thread"
    if where:
        evidence += f"; {words.local} loads/stores by line: {where}"
    maxnreg = k.c.options.get("maxnreg")
    if maxnreg:
        advice, what_if = (
            f"raise or drop --maxnreg {maxnreg}: the code needs more registers",
            WhatIf("option", "maxnreg", None),
        )
    else:
        warps = k.c.options.get("num_warps") or 4
        advice = f"spread the tile over more threads (num_warps={warps * 2}) or make the BLOCK sizes smaller"
        what_if = WhatIf("option", "num_warps", warps * 2)
    lines = tuple(c.line for c in local)
    return [
        Finding(
            SPILLS,
            lines[0] if lines else None,
            f"registers spill to {words.local}: {r.spills} {'words' if words.local == 'local memory' else 'registers'}"
            + (f", on lines {', '.join(map(str, lines[:6]))}" if lines else ""),
            evidence,
            advice,
            lines,
            (what_if,),
        )
    ]


def shared_limit(target: Target) -> int:
    """Shared memory a block may use; unknown (gfx1250's LDS) counts as no limit: none is reported."""
    limits = target.limits
    limit = limits.shared_per_block if isinstance(limits, NvidiaLimits) else limits.lds_per_cu
    return limit if limit is not None else 2**62


def _allocations(k: _Kernel) -> list[tuple[int | None, str, int]]:
    """(kernel line, shape, bytes) of each shared-memory buffer TTGIR allocates, largest first."""
    found = []
    for op in k.module.ops:
        if op.name == "ttg.local_alloc":
            buffer = ttgir.memdesc_bytes(op.text)
            lines = k.lines_of(op)
            if buffer:
                found.append((lines[0] if lines else None, *buffer))
    return sorted(found, key=lambda a: -a[2])


def _shared_limit(k: _Kernel) -> list[Finding]:
    shared, limit = k.c.resources.shared_bytes, shared_limit(k.target)
    if shared <= limit:
        return []
    buffers = _allocations(k)
    listed = "; ".join(f"line {line}: {shape} = {kib(size)}" for line, shape, size in buffers[:4])
    stages = k.c.options.get("num_stages") or 1
    what_if = (WhatIf("option", "num_stages", stages - 1),) if stages > 1 else ()
    advice = f"num_stages={stages - 1} keeps one copy fewer of each pipelined tile" if stages > 1 else ""
    return [
        Finding(
            SHARED_LIMIT,
            buffers[0][0] if buffers else None,
            f"needs {kib(shared)} of {k.target.vendor.words.shared} per block; {k.target.label} allows "
            f"{kib(limit)}: the launch will fail (out of resources)",
            f"buffers in TTGIR: {listed or 'none named'}",
            "; ".join(a for a in (advice, "smaller BLOCK sizes (the tiles of A and B are what is kept)") if a),
            what_if=what_if,
        )
    ]


def _occupancy(k: _Kernel) -> list[Finding]:
    r, options = k.c.resources, k.c.options
    occ = r.occupancy
    if occ.limited_by not in ("registers", "shared memory") or occ.blocks_per_sm == 0 or occ.percent >= 100:
        return []
    if occ.limited_by == "registers" and any(p.registers for p in k.c.partitions):
        # Warp-specialized partitions that reallocate registers (setmaxnreg) share out the whole
        # register file among one block's warps: one block per SM by design (warp-partition says how).
        return []
    warps = options.get("num_warps") or 4
    units = k.target.vendor.words
    figure = f"{r.registers} {units.registers} per thread" if occ.limited_by == "registers" else kib(r.shared_bytes)
    message = (
        f"occupancy {occ.percent:.0f}%: {occ.blocks_per_sm} block(s) of {warps} {units.warps} per "
        f"{units.multiprocessor}, limited by {occ.limited_by} ({figure})"
    )
    evidence, line = _peak_note(k) if occ.limited_by == "registers" else _buffers_note(k)
    advice, what_if = _next_step(k)
    return [Finding(OCCUPANCY, line, message, evidence, advice, what_if=what_if)]


def _peak_note(k: _Kernel) -> tuple[str, int | None]:
    peaks = [c for c in k.costs.values() if c.live_registers]
    if not peaks:
        r, words = k.c.resources, k.target.vendor.words
        return f"{r.registers} {words.registers} per thread, {kib(r.shared_bytes)} of {words.shared} per block", None
    top = max(peaks, key=lambda c: c.live_registers or 0)
    return f"the most registers live at once: {top.live_registers}, on line {top.line}", top.line


def _buffers_note(k: _Kernel) -> tuple[str, int | None]:
    buffers = _allocations(k)
    listed = "; ".join(f"line {line}: {shape} = {kib(size)}" for line, shape, size in buffers[:4])
    return f"{kib(k.c.resources.shared_bytes)} per block; buffers in TTGIR: {listed or 'none named'}", (
        buffers[0][0] if buffers else None
    )


def _next_step(k: _Kernel) -> tuple[str, tuple[WhatIf, ...]]:
    """What reaches one more resident block, as a request change to compile."""
    r, occ, limits = k.c.resources, k.c.resources.occupancy, k.target.limits
    warps = k.c.options.get("num_warps") or 4
    stages = k.c.options.get("num_stages") or 1
    if occ.limited_by == "registers" and isinstance(limits, NvidiaLimits):
        for cap in range(r.registers - r.registers % 8, 23, -8):
            if nvidia_occupancy(limits, cap, r.shared_bytes, warps).blocks_per_sm > occ.blocks_per_sm:
                return (
                    f"--maxnreg {cap} reaches {occ.blocks_per_sm + 1} blocks per SM, if the code fits without spilling",
                    (WhatIf("option", "maxnreg", cap),),
                )
        return "fewer registers per thread: smaller BLOCK sizes or more warps", ()
    if occ.limited_by == "shared memory" and stages > 1:
        return f"num_stages={stages - 1} needs less shared memory per block", (
            WhatIf("option", "num_stages", stages - 1),
        )
    return f"fewer {k.target.vendor.words.registers} or less shared memory per block: smaller BLOCK sizes", ()


# --- matrix instructions, conversions, pipelining ---------------------------------------------------


def _matrix(k: _Kernel) -> list[Finding]:
    found = []
    for op in k.module.ops:
        lines = k.lines_of(op)
        if op.name not in ("tt.dot", "tt.dot_scaled") or not lines:
            continue
        result = _result_layout(k, op)
        problem = _dot_problem(k, op, result)
        if problem is None:
            continue
        message, cause, advice = problem
        said = [r.message for r in _remarks_at(k, lines[0]) if r.message.startswith("MMA version")]
        cause = cause or (f"Triton's remark: {said[0]}" if said else "")
        cost = k.costs.get(lines[0])
        count = cost.instructions.matrix if cost else 0
        found.append(
            Finding(
                MATRIX,
                lines[0],
                message + (f": {cause}" if cause else ""),
                f"TTGIR line {op.number}: {op.name} -> {result or '?'}; {k.machine}: {count} matrix "
                f"instructions on line {lines[0]}",
                advice,
            )
        )
    return found


def _result_layout(k: _Kernel, op: ttgir.Op) -> str | None:
    typed = tensor_type(op.text)
    if typed is None:
        return None
    layout = k.module.aliases.get(typed[1], typed[1])
    return layout.split("<", 1)[0] + (
        f" v{layout.split('versionMajor = ')[1].split(',')[0]}" if "versionMajor" in layout else ""
    )


def _dot_problem(k: _Kernel, op: ttgir.Op, result: str | None) -> tuple[str, str, str] | None:
    shapes = [tuple(int(d) for d in s.split("x")) for s in _dims(op.text)]
    if result and result.startswith("#ttg.blocked"):
        cause = ""
        if "xf32" in op.text.split("->")[0] and "inputPrecision" not in op.text:  # ieee, the default, is not printed
            cause = "fp32 operands with input_precision='ieee'"
        elif any(min(s) < 16 for s in shapes[:2]):
            cause = f"an operand dimension below 16 ({' and '.join('x'.join(map(str, s)) for s in shapes[:2])})"
        return (
            "tl.dot runs on FMA units, not matrix instructions",
            cause,
            "use fp16/bf16 operands or input_precision='tf32', and tiles of at least 16 in every dimension",
        )
    if result == "#ttg.nvidia_mma v2" and k.target.arch == 90:
        warps = k.c.options.get("num_warps") or 4
        if warps % 4:
            cause = f"num_warps={warps} is not a multiple of 4 (a warp group)"
        elif shapes and shapes[0][0] < 64:
            cause = f"the M tile is {shapes[0][0]}; a warp group's wgmma needs at least 64 rows"
        else:
            cause = ""
        return (
            "tl.dot uses mma.sync (HMMA) where sm90's wgmma (HGMMA) could run",
            cause,
            "num_warps a multiple of 4 and BLOCK M >= 64 let Triton choose wgmma",
        )
    return None


def _dims(text: str) -> list[str]:
    return re.findall(r"tensor<((?:\d+x)*\d+)x[a-zA-Z]", text.split("->")[0])


def _conversions(k: _Kernel) -> list[Finding]:
    found = []
    loops = {op.number: op.loop for op in k.module.ops}
    for cost in sorted(k.costs.values(), key=lambda c: c.line):
        moved = [c for c in cost.conversions if c.through_shared]
        if not moved or any(k.lines_of_number(c.ttgir_line)[:1] != [cost.line] for c in moved):
            continue  # reported on the conversion's own line, not again at a helper's call site
        in_loop = any(loops.get(c.ttgir_line) for c in moved)
        found.append(
            Finding(
                CONVERSION,
                cost.line,
                f"layout conversion {moved[0].source} -> {moved[0].destination} moves "
                f"{kib(cost.shared_conversion_bytes)} through {k.target.vendor.words.shared}"
                + (" in every loop iteration" if in_loop else ""),
                _conversion_evidence(k, cost, moved),
                "inside a loop, keep the values in one layout (compute on the dot's layout, or convert once before "
                "the loop)"
                if in_loop
                else "once per tile (an epilogue before a store) this round trip is usually worth it",
            )
        )
    return found


def _conversion_evidence(k: _Kernel, cost: LineCost, moved) -> str:
    ops = "; ".join(
        f"TTGIR line {c.ttgir_line}: ttg.convert_layout of {'x'.join(map(str, c.shape))}x{c.element}" for c in moved
    )
    mix = cost.instructions
    return (
        f"{ops}; {k.machine} on line {cost.line}: {_count(mix.shared_stores, 'shared store')}, "
        f"{_count(mix.shared_loads, 'shared load')}, {_count(mix.barriers, 'barrier')}"
    )


def _not_pipelined(k: _Kernel) -> list[Finding]:
    if k.target.backend != "cuda":  # AMD's stream pipeliner keeps tt.load in the loop when it pipelines
        return []
    loops: dict[int, list[ttgir.Op]] = {}
    for op in k.module.ops:
        if op.name == "tt.load" and op.loop is not None and "tensor<" in op.text and k.lines_of(op):
            loops.setdefault(op.loop, []).append(op)
    stages = k.c.options.get("num_stages") or 1
    found = []
    for loop, loads in sorted(loops.items()):
        dots = [k.lines_of(op)[0] for op in k.module.ops if op.loop == loop and op.name in ttgir.DOT_OPS]
        lines = tuple(dict.fromkeys(k.lines_of(op)[0] for op in loads))
        cause, advice, remark_line = _loop_cause(k, stages, dots)
        found.append(
            Finding(
                NOT_PIPELINED,
                lines[0],
                f"loads in a loop are not software-pipelined, so each iteration waits for its data: {cause}",
                f"TTGIR: {len(loads)} tt.load in the scf.for at line {loop} (a pipelined load is an async copy), "
                f"on Python line(s) {', '.join(map(str, lines))}",
                advice or "make each thread's loads at least 32 bits wide (see the narrow-access findings)",
                lines + ((remark_line,) if remark_line else ()),
                (WhatIf("option", "num_stages", 3),) if stages <= 1 else (),
            )
        )
    return found


def _loop_cause(k: _Kernel, stages: int, dots: list[int]) -> tuple[str, str, int | None]:
    """(why a loop's loads are not pipelined, what to try, the line of the tl.dot whose remark says why)."""
    if stages <= 1:
        return f"num_stages={stages}", "num_stages=3 (or 2, if shared memory is short)", None
    said = [line for line in dots for r in _remarks_at(k, line) if "pipelined load" in r.message]
    if said:  # AccelerateMatmul: "Forcing a different order ... the pipelined load for this operand will be disabled"
        return (
            f"Triton transposes an operand of the tl.dot on line {said[0]} in registers before it stores it to "
            "shared memory, and then does not pipeline its load (Triton's warning, below)",
            "store that operand in global memory in the order the matrix instruction reads it (K-major)",
            said[0],
        )
    if dots:
        return "the pipeliner declined them (it skips loads narrower than 32 bits per thread)", "", None
    return (
        "Triton's pipeliner takes loads that feed a tl.dot, and this loop has none",
        "ask for it: `for i in tl.range(start, end, step, num_stages=3)`",
        None,
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def kib(n: int) -> str:
    return f"{n / 1024:.4g} KiB" if n >= 1024 else f"{n} B"


# --- MLIR remarks ---------------------------------------------------------------------------------

# What a remark is about, by its words: one on a line that has a finding of these kinds is that
# finding's (its evidence, and for the dot its cause); any other is a finding of its own.
_REMARK_TOPICS = (
    ("MMA version", (MATRIX, "dot-not-on-tcgen05")),  # AccelerateMatmul: "MMA version 3 acceleration not applied ..."
    ("vectorization fails", (NARROW,)),  # LoadStoreOpToLLVM: "Warning: vectorization fails vec = 1 ..."
    ("Pipelining load", (NOT_PIPELINED, NARROW)),  # the pipeliner: "... cannot use vectorized copy ..."
    ("pipelined load for this operand", (NOT_PIPELINED,)),  # AccelerateMatmul: "Forcing a different order ..."
)


def remark_line(k: _Kernel, remark) -> int | None:
    """The kernel-file line a remark is about: its own, or the call site of the helper it is in."""
    return next((line for file, line in remark.locations if file == k.c.kernel.file), None)


def _remarks_at(k: _Kernel, line: int) -> list:
    return [r for r in k.c.remarks if remark_line(k, r) == line]


def _with_remarks(k: _Kernel, found: list[Finding]) -> list[Finding]:
    """The findings with each remark given to the one it is about, and the others as findings of their own."""
    for remark in k.c.remarks:
        line = remark_line(k, remark)
        kinds = next((kinds for words, kinds in _REMARK_TOPICS if words in remark.message), ())
        about = next((i for i, f in enumerate(found) if f.kind in kinds and line in (f.line, *f.lines)), None)
        if about is None:
            found.append(_remark_finding(k, remark, line))
        elif remark.text not in found[about].remarks:
            found[about] = replace(found[about], remarks=(*found[about].remarks, remark.text))
    return found


def _remark_finding(k: _Kernel, remark, line: int | None) -> Finding:
    where = ", called from ".join(f"{Path(file).name}:{n}" for file, n in remark.locations) or "no location"
    return Finding(
        REMARK,
        line,
        f"Triton's compiler {'warns' if remark.severity == 'warning' else 'remarks'}: {remark.message}",
        f"MLIR {remark.severity} at {where}" + "".join(f"; {note}" for note in remark.notes),
        "",
        remarks=(remark.text,),
    )
