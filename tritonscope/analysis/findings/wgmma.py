"""Findings on Hopper's warp-group matrix instructions (wgmma), read from the TTGIR and ptxas's report:

- wgmma-waited-at-issue: a wgmma in a loop whose wait (`warp_group_dot_wait {pendings = 0}`)
  follows its issue at once, so the warps idle while the tensor cores work; with the loop's
  pipelining depth, and why Triton waits (an operand written to shared memory each iteration, or a
  result used at once).
- wgmma-serialized: ptxas announced that it serialized the kernel's wgmma (each waited for before
  the next issues, whatever the TTGIR's waits say), with its reason and what removes it.
"""

from __future__ import annotations

import re

from ...core.stages import Stage
from ...parsers import sass_lines
from .. import ttgir
from .kernel import Kernel
from .kinds import WGMMA_SERIALIZED, WGMMA_WAIT
from .model import Finding
from .target import buffers_of

_PENDINGS = re.compile(r"pendings = (\d+)")


def wgmma_waits(k: Kernel) -> list[Finding]:
    ops = k.module.ops
    found = []
    for i, op in enumerate(ops):
        # Once outside a loop (a prologue's or an epilogue's wgmma) a wait at issue costs one wgmma's
        # latency per program, not the tensor cores' idle time every iteration.
        if op.name != "ttng.warp_group_dot" or not op.results or not k.lines_of(op) or op.loop is None:
            continue
        wait = next((w for w in ops[i + 1 : i + 3] if w.name == "ttng.warp_group_dot_wait"), None)
        pendings = _PENDINGS.search(wait.text) if wait else None
        if wait is None or op.results[0] not in wait.operands or not pendings or pendings.group(1) != "0":
            continue
        line = k.lines_of(op)[0]
        found.append(
            Finding(
                WGMMA_WAIT,
                line,
                "the wgmma is waited for right after it is issued: the warps idle while the tensor cores work, "
                "and no other math overlaps it" + _depth(k, op),
                f"TTGIR line {op.number}: ttng.warp_group_dot, then line {wait.number}: "
                "ttng.warp_group_dot_wait {pendings = 0}",
                _why_waited(k, op) + _overlap(k),
            )
        )
    return found


def _why_waited(k: Kernel, dot: ttgir.Op) -> str:
    """Why Triton waits: an operand the loop writes to shared memory from registers each iteration (a
    dequantized weight: gemlite, mamba's rescaled B) must be read before the next iteration writes it
    again; else a result used at once."""
    written = next(
        (o for o in k.module.ops if o.name == "ttg.local_alloc" and o.loop == dot.loop and o.operands and o.results
         and o.results[0] in dot.operands),
        None,
    )  # fmt: skip
    if written is None:
        return (
            "Triton keeps a wgmma in flight only when its result is the next iteration's accumulator of the "
            "same dot (a matmul's K loop); a result used at once (attention's Q K^T) is waited for. "
        )
    lines = k.lines_of(written)
    source = f" (line {lines[0]})" if lines else ""
    return (
        f"an operand is computed in registers{source} and written to one shared buffer every iteration "
        f"(TTGIR line {written.number}: ttg.local_alloc), which the next iteration may not overwrite "
        "before this wgmma has read it: give the dot the loaded tile as it is (no arithmetic between "
        "tl.load and tl.dot, so the pipeline copies it) and apply the scale or the unpacking to the "
        "other operand or the accumulator where the algebra allows. "
    )


_SERIALIZED = "ptxas: wgmma.mma_async instructions are serialized due to "
# ptxas's reasons (its C7508-C7520 announcements), by a phrase of each -> what removes it.
_UNSERIALIZE = {
    "reading accumulator registers": "an accumulator is read while ptxas cannot prove its wgmma done: in Gluon, "
    "wait with `warpgroup_mma_wait(0)` (not 1) before reading or rescaling the accumulator",
    "defining accumulator registers": "an accumulator is written while its wgmma may run: wait for the wgmma "
    "before changing it, or start a new accumulator",
    "defining input registers": "an operand held in registers is rewritten while its wgmma may run: wait first",
    "insufficient register resources": "the wgmma pipeline needs more registers than are left: a smaller tile, "
    "fewer stages, or fewer live values across the loop",
    "Extern calls": "the kernel calls a function ptxas cannot see into (libdevice, an extern): keep such calls "
    "out of the loop that issues wgmma",
    "function boundary": "a wgmma pipeline crosses a call: inline the helper (no noinline=True)",
}


def wgmma_serialized(k: Kernel) -> list[Finding]:
    reasons = [w.removeprefix(_SERIALIZED) for w in k.c.resources.warnings if w.startswith(_SERIALIZED)]
    if not reasons:
        return []
    dots = [op for op in k.module.ops if op.name == "ttng.warp_group_dot" and k.lines_of(op)]
    lines = list(dict.fromkeys(k.lines_of(op)[0] for op in dots))
    hgmma, waited = sass_lines.hgmma_waits(k.c.stages.get(Stage.SASS, ""))
    fixes = [fix for phrase, fix in _UNSERIALIZE.items() if any(phrase in r for r in reasons)]
    return [
        Finding(
            WGMMA_SERIALIZED,
            lines[0] if lines else None,
            "ptxas serialized every wgmma: each is waited for before the next issues, so no wgmma overlaps "
            "another or any other math, whatever the waits in the TTGIR allow",
            f"ptxas: serialized due to {'; '.join(reasons)}; SASS: {waited} of {hgmma} HGMMA end a wgmma group "
            "(gsb0) and are waited for (WARPGROUP.DEPBAR) on their own",
            ("; ".join(fixes) or "see ptxas's reason") + ". `dump` shows the warning among the resources",
            lines=tuple(lines),
        )
    ]


def _overlap(k: Kernel) -> str:
    blocks = k.c.resources.occupancy.blocks_per_sm
    if blocks > 1:
        return f"Here {blocks} blocks share each SM, so one block's other math runs while another's wgmma does"
    return (
        "Overlap comes from a second block per SM (a smaller BLOCK_M and num_warps=4, so that one block's "
        "softmax runs while another's wgmma does), or from warp specialization where Triton lowers it"
    )


def _depth(k: Kernel, dot: ttgir.Op) -> str:
    """The loop's pipelining depth: the copies of each tile the dot reads that are kept in flight."""
    if dot.loop is None:
        return ""
    sizes = set()
    for operand in dot.operands[:2]:
        for buffer in buffers_of(k, operand):
            alloc = next(o for o in k.module.ops if o.results[:1] == (buffer,))
            dims = ttgir.memdesc_dims(alloc.text)
            if dims and len(dims) == 3:
                sizes.add(dims[0])
    stages = k.c.options.get("num_stages") or 1
    kept = f"{'/'.join(map(str, sorted(sizes)))} buffers per tile" if sizes else "operands not multi-buffered"
    return f" (in the loop at TTGIR line {dot.loop}: num_stages={stages}, {kept})"
