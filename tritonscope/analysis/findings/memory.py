"""Registers and shared memory: spills, a block over the shared-memory limit, occupancy held by
registers or shared memory (with the next step to one more block), layout conversions through shared
memory, and loads in a loop the pipeliner left waiting."""

from __future__ import annotations

from ...core.quantities import count, percentage
from ...core.quantities import size as kib
from ...core.targets import NvidiaLimits, Target
from .. import trip_counts, ttgir
from ..cost import LineCost
from ..resources import nvidia_occupancy
from . import stages as pipeline
from .access import access_type, accesses, narrow, per_thread
from .gluon import unwritten
from .kernel import Kernel
from .kinds import CONVERSION, NOT_PIPELINED, OCCUPANCY, SHARED_LIMIT, SPILLS
from .model import Finding, WhatIf


def spills(k: Kernel) -> list[Finding]:
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
    elif (warps := k.c.options.get("num_warps") or 4) * 2 * k.target.warp_size <= k.target.limits.max_threads_per_block:
        advice = f"spread the tile over more threads (num_warps={warps * 2}) or make the BLOCK sizes smaller"
        what_if = WhatIf("option", "num_warps", warps * 2)
    else:  # twice the warps would not launch: a block holds at most max_threads_per_block threads
        advice, what_if = "make the BLOCK sizes smaller: the block has the most threads a launch takes", None
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
            (what_if,) if what_if else (),
        )
    ]


def shared_limit(target: Target) -> int:
    """Shared memory a block may use; unknown (gfx1250's LDS) counts as no limit: none is reported."""
    limits = target.limits
    limit = limits.shared_per_block if isinstance(limits, NvidiaLimits) else limits.lds_per_cu
    return limit if limit is not None else 2**62


_SCRATCH = "none: it is scratch (a layout conversion's or a reduction's)"


def _allocations(k: Kernel) -> list[tuple[int | None, str, int]]:
    """(kernel line, shape, bytes) of each shared-memory buffer TTGIR allocates, largest first."""
    found = []
    for op in k.module.ops:
        if op.name == "ttg.local_alloc":
            buffer = ttgir.memdesc_bytes(op.text)
            lines = k.lines_of(op)
            if buffer:
                found.append((lines[0] if lines else None, *buffer))
    return sorted(found, key=lambda a: -a[2])


def over_shared_limit(k: Kernel) -> list[Finding]:
    shared, limit = k.c.resources.launch_shared_bytes, shared_limit(k.target)
    if shared <= limit:
        return []
    buffers = _allocations(k)
    listed = "; ".join(f"line {line}: {shape} = {kib(size)}" for line, shape, size in buffers[:4])
    stages = pipeline.stages(k) if pipeline.reaches(k) else 1
    said, fewer = pipeline.fewer(k, stages - 1)
    what_if = fewer if stages > 1 else ()
    advice = f"{said} keeps one copy fewer of each pipelined tile" if stages > 1 else ""
    return [
        Finding(
            SHARED_LIMIT,
            buffers[0][0] if buffers else None,
            f"needs {kib(shared)} of {k.target.vendor.words.shared} per block; {k.target.label} allows "
            f"{kib(limit)}: the launch will fail (out of resources)",
            f"buffers in TTGIR: {listed or _SCRATCH}",
            "; ".join(a for a in (advice, "smaller BLOCK sizes (the tiles of A and B are what is kept)") if a),
            what_if=what_if,
        )
    ]


def occupancy(k: Kernel) -> list[Finding]:
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
        f"occupancy {percentage(occ.percent)}: {count(occ.blocks_per_sm, 'block')} of {warps} {units.warps} per "
        f"{units.multiprocessor}, limited by {occ.limited_by} ({figure})"
    )
    evidence, line = _peak_note(k) if occ.limited_by == "registers" else _buffers_note(k)
    advice, what_if = _next_step(k)
    return [Finding(OCCUPANCY, line, message, evidence, advice, what_if=what_if)]


def _peak_note(k: Kernel) -> tuple[str, int | None]:
    peaks = [c for c in k.costs.values() if c.live_registers]
    if not peaks:
        r, words = k.c.resources, k.target.vendor.words
        return f"{r.registers} {words.registers} per thread, {kib(r.shared_bytes)} of {words.shared} per block", None
    top = max(peaks, key=lambda c: c.live_registers or 0)
    return f"the most registers live at once: {top.live_registers}, on line {top.line}", top.line


def _buffers_note(k: Kernel) -> tuple[str, int | None]:
    buffers = _allocations(k)
    listed = "; ".join(f"line {line}: {shape} = {kib(size)}" for line, shape, size in buffers[:4])
    return f"{kib(k.c.resources.shared_bytes)} per block; buffers in TTGIR: {listed or _SCRATCH}", (
        buffers[0][0] if buffers else None
    )


def _next_step(k: Kernel) -> tuple[str, tuple[WhatIf, ...]]:
    """What reaches one more resident block, as a request change to compile."""
    r, occ, limits = k.c.resources, k.c.resources.occupancy, k.target.limits
    warps = k.c.options.get("num_warps") or 4
    stages = pipeline.stages(k)
    if occ.limited_by == "registers" and isinstance(limits, NvidiaLimits):
        for cap in range(r.registers - r.registers % 8, 23, -8):
            reached = nvidia_occupancy(limits, cap, r.shared_bytes, warps, r.reserved_in_shared).blocks_per_sm
            if reached > occ.blocks_per_sm:
                return (
                    f"--maxnreg {cap} reaches {reached} blocks per SM, if the code fits without spilling",
                    (WhatIf("option", "maxnreg", cap),),
                )
        # more warps share a block's work out, but not past the threads a block may have
        more = warps * 2 * k.target.warp_size <= limits.max_threads_per_block
        return "fewer registers per thread: smaller BLOCK sizes" + (" or more warps" if more else ""), ()
    if occ.limited_by == "shared memory" and stages > 1 and pipeline.reaches(k):
        said, fewer = pipeline.fewer(k, stages - 1)
        return f"{said} needs less shared memory per block", fewer
    if occ.limited_by == "shared memory" and not _allocations(k):  # no buffer: a conversion's scratch
        return "smaller BLOCK sizes: the shared memory is the scratch of a layout conversion (its finding)", ()
    return f"fewer {k.target.vendor.words.registers} or less shared memory per block: smaller BLOCK sizes", ()


def conversions(k: Kernel) -> list[Finding]:
    found = []
    loops = {op.number: op.loop for op in k.module.ops}
    narrowed: dict[int, Finding] | None = None  # the narrow accesses whose hints are known, read once if needed
    for cost in sorted(k.costs.values(), key=lambda c: c.line):
        moved = [c for c in cost.conversions if c.through_shared]
        if not moved or any(k.lines_of_number(c.ttgir_line)[:1] != [cost.line] for c in moved):
            continue  # reported on the conversion's own line, not again at a helper's call site
        in_loop = any(_each_iteration(k, loops.get(c.ttgir_line)) for c in moved)
        hinted = None
        if _into_an_access(k, cost.line, moved):
            if narrowed is None:
                # a hint's what-if (not the layout's fewer warps): the values' own layout comes with it
                narrowed = {f.line: f for f in narrow(k) if f.line is not None and _hinted(f)}
            hinted = narrowed.get(cost.line)
        found.append(
            Finding(
                CONVERSION,
                cost.line,
                ("not written in the kernel (no convert_layout on its lines): " if unwritten(k, cost.line) else "")
                + f"layout conversion {moved[0].source} -> {moved[0].destination} moves "
                f"{kib(cost.shared_conversion_bytes)} through {k.target.vendor.words.shared}"
                + (" in every loop iteration" if in_loop else ""),
                _conversion_evidence(k, cost, moved),
                _conversion_advice(in_loop, hinted, _stores(k, cost.line)),
                what_if=hinted.what_if if hinted else (),
            )
        )
    return found


def _each_iteration(k: Kernel, loop: int | None) -> bool:
    """Whether a conversion in `loop` runs every iteration of a hot loop: not where a tl.dot's loop is
    nested in it (a persistent kernel's tile loop, the conversion its epilogue's: once per tile)."""
    if loop is None:
        return False
    parents = {op.number: op.loop for op in k.module.ops if op.name == "scf.for"}
    for dot in k.module.ops:
        if dot.name not in ttgir.DOT_OPS or dot.loop is None or dot.loop == loop:
            continue
        outer = parents.get(dot.loop)
        while outer is not None:
            if outer == loop:
                return False
            outer = parents.get(outer)
    return True


def _into_an_access(k: Kernel, line: int, moved) -> bool:
    """Whether a conversion on the line lays its values out as a global access of the line takes them."""
    layouts = {c.destination for c in moved}
    return any((typed := access_type(op)) is not None and typed[1] in layouts for op in accesses(k).get(line, []))


def _hinted(found: Finding) -> bool:
    return any(what != "option" for what, _, _ in found.what_if)


def _stores(k: Kernel, line: int) -> bool:
    """Whether the line stores to global memory (a conversion there lays out an epilogue's tile)."""
    return any(op.name in ("tt.store", "tt.descriptor_store") for op in accesses(k).get(line, []))


def _conversion_advice(in_loop: bool, hinted: Finding | None, stored: bool = False) -> str:
    if hinted is not None:  # the access's layout is narrower than the values' only for want of a hint
        return (
            "the conversion lays the values out for this line's narrow access (its finding: the hints Triton "
            "lacks); with them the access takes the values' own layout, and the round trip goes"
        )
    if in_loop:
        return (
            "inside a loop, keep the values in one layout (compute on the dot's layout, or convert once before "
            "the loop)"
        )
    if stored:
        return "once per tile (an epilogue before a store) this round trip is usually worth it"
    return "once per tile, outside any loop, this round trip is usually worth it"


def _conversion_evidence(k: Kernel, cost: LineCost, moved) -> str:
    ops = "; ".join(
        f"TTGIR line {c.ttgir_line}: ttg.convert_layout of {'x'.join(map(str, c.shape))}x{c.element}" for c in moved
    )
    mix = cost.instructions
    return (
        f"{ops}; {k.machine} on line {cost.line}: {count(mix.shared_stores, 'shared store')}, "
        f"{count(mix.shared_loads, 'shared load')}, {count(mix.barriers, 'barrier')}"
    )


def not_pipelined(k: Kernel) -> list[Finding]:
    loops: dict[int, list[ttgir.Op]] = {}
    for op in k.module.ops:
        if op.name == "tt.load" and op.loop is not None and "tensor<" in op.text and k.lines_of(op):
            loops.setdefault(op.loop, []).append(op)
    stages = k.c.options.get("num_stages") or 1
    trips = trip_counts.trips_by_op(k.c)
    found = []
    for loop, loads in sorted(loops.items()):
        if trips.get(loop, 2) <= 1:  # a loop that runs once (a row shorter than its block): nothing to overlap
            continue
        dots = [k.lines_of(op)[0] for op in k.module.ops if op.loop == loop and op.name in ttgir.DOT_OPS]
        lines = tuple(dict.fromkeys(k.lines_of(op)[0] for op in loads))
        cause, advice, remark_line = _loop_cause(k, stages, dots, loads)
        found.append(
            Finding(
                NOT_PIPELINED,
                lines[0],
                f"loads in a loop are not software-pipelined, so each iteration waits for its data: {cause}",
                f"TTGIR: {len(loads)} tt.load in the scf.for at line {loop} (a pipelined load is an async copy), "
                f"on Python {'line' if len(lines) == 1 else 'lines'} {', '.join(map(str, lines))}",
                advice or "make each thread's loads at least 32 bits wide (see the narrow-access findings)",
                lines + ((remark_line,) if remark_line else ()),
                (WhatIf("option", "num_stages", 3),) if stages <= 1 else (),
            )
        )
    return found


def _loop_cause(k: Kernel, stages: int, dots: list[int], loads: list[ttgir.Op]) -> tuple[str, str, int | None]:
    """(why a loop's loads are not pipelined, what to try, the line of the tl.dot whose remark says why)."""
    if stages <= 1:
        return f"num_stages={stages}", "num_stages=3 (or 2, if shared memory is short)", None
    said = [line for line in dots for r in k.remarks_at(line) if "pipelined load" in r.message]
    if said:  # AccelerateMatmul: "Forcing a different order ... the pipelined load for this operand will be disabled"
        return (
            f"Triton transposes an operand of the tl.dot on line {said[0]} in registers before it stores it to "
            "shared memory, and then does not pipeline its load (Triton's warning, below)",
            "store that operand in global memory in the order the matrix instruction reads it (K-major)",
            said[0],
        )
    if dots:
        return _declined(k, loads)
    return (
        "Triton's pipeliner takes loads that feed a tl.dot, and this loop has none",
        "ask for it: `for i in tl.range(start, end, step, num_stages=3)`",
        None,
    )


def _declined(k: Kernel, loads: list[ttgir.Op]) -> tuple[str, str, int | None]:
    """Why the pipeliner left a dot's loop's loads as they are, where Triton does not say: loads narrower
    than 32 bits per thread (cp.async's least), or loads no tl.dot reads (DeepSeek's fp8 GEMM's scales,
    32 bits wide, multiply the dot's result: they were said to be "narrower than 32 bits")."""
    narrow = [op for op in loads if (info := per_thread(k, op)) is not None and info[0] * info[1] < 32]
    if narrow:
        lines = ", ".join(map(str, dict.fromkeys(k.lines_of(op)[0] for op in narrow)))
        return f"the pipeliner skips loads narrower than 32 bits per thread (line {lines})", "", None
    if not any(_feeds_dot(k, op) for op in loads):
        return (
            "Triton's pipeliner takes the loads a tl.dot reads, and no tl.dot reads these (their values are used "
            "beside it, after it)",
            "nothing to widen: the loads the tl.dot reads are pipelined; these wait their latency each iteration",
            None,
        )
    return "the pipeliner declined them, and Triton says not why", "compare num_stages=2 and 3 (diff --vary)", None


def _feeds_dot(k: Kernel, load: ttgir.Op) -> bool:
    """Whether a load's value reaches an operand a tl.dot multiplies (not its accumulator), in its loop."""
    reached = set(load.results)
    for op in k.module.ops:
        if op.loop != load.loop or op.number <= load.number or not reached & set(op.operands):
            continue
        if op.name in ttgir.DOT_OPS:
            if reached & set(op.operands[:2]):
                return True
            continue
        reached.update(op.results)
    return False
