"""Findings about what a kernel's author controls in Gluon, or asked for with warp specialization:
shared-memory accesses that conflict on banks (Gluon's own count), warp-specialized partitions
and their register budgets, and whether a layout conversion through shared memory was written in
the source (memory.py's conversions ask `unwritten`)."""

from __future__ import annotations

from pathlib import Path

from ...core.quantities import count
from ...core.stages import Language, Stage
from .. import cost, warp_specialize
from .kernel import Kernel
from .kinds import BANK_CONFLICTS, PARTITION
from .model import Finding

REGISTERS_PER_SM = warp_specialize.REGISTERS_PER_SM


def unwritten(k: Kernel, line: int) -> bool:
    """A Gluon kernel's conversion on `line` that no gl.convert_layout call made: none of the Python
    lines its TTGIR ops come from (its own, in a helper too, and every call site, in any file) calls one.

    When it can fire: Gluon makes a ttg.convert_layout only for gl.convert_layout (the frontend's one
    create_convert_layout call, Triton 3.5 to 3.9), and its TTGIR pipeline (inliner, auto and coalesced
    encodings, TMA lowering, a canonicalizer that leaves ConvertLayoutOp alone, SCCP, CSE) neither adds
    nor moves one (3.9's sanitizer modes, fpsan and consan, left a kernel's conversion on its own line
    where we tried). So on these releases it fires only where the call is spelled otherwise (a
    convert_layout under another name); it is kept for a release or pipeline that changes that.
    tests/test_gluon.py holds the claim on every Gluon test kernel: a release that breaks it fails."""
    if k.c.kernel.language is not Language.GLUON:
        return False
    places = conversion_places(k, line)
    return bool(places) and not any("convert_layout" in _python_line(k, file, n) for file, n in places)


def conversion_places(k: Kernel, line: int) -> set[tuple[str, int]]:
    """Every (file, line) the ttg.convert_layout ops reported on `line` of the kernel's file come from."""
    stage_map = k.c.line_map.get(Stage.TTGIR, {})
    places: set[tuple[str, int]] = set()
    for op in k.module.ops:
        located = stage_map.get(op.number, ())
        if op.name == "ttg.convert_layout" and (k.c.kernel.file, line) in located:
            places.update(located)
    return places


def _python_line(k: Kernel, file: str, number: int) -> str:
    """A line of the kernel's file, or of another file a helper lives in ("" where it cannot be read)."""
    if file == k.c.kernel.file:
        return cost.source_texts(k.c).get(number, "")
    try:
        lines = Path(file).read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return lines[number - 1] if 0 < number <= len(lines) else ""


def bank_conflicts(k: Kernel) -> list[Finding]:
    found = []
    for a in k.shared_accesses:
        if not a.conflicts:
            continue
        registers, shared = (t.split(",")[1].strip().rstrip(">") for t in (a.tensor_type, a.memdesc_type))
        verb = "reads" if a.op == "local_load" else "writes"
        found.append(
            Finding(
                BANK_CONFLICTS,
                a.python_lines[0] if a.python_lines else None,
                f"{a.op} {verb} shared memory ({shared}) in layout {registers} with "
                f"{count(a.conflicts, 'bank conflict')} per instruction",
                f"TTGIR line {a.ttgir_line}: {a.tensor_type} <-> {a.memdesc_type}; Gluon's gl.bank_conflicts "
                f"counts {count(a.conflicts, 'extra wavefront')}",
                _bank_advice(k),
                lines=tuple(dict.fromkeys(a.python_lines)),
            )
        )
    return found


def _bank_advice(k: Kernel) -> str:
    """What the author can change: in Gluon, the shared layout (NVMMASharedLayout on NVIDIA only); in a
    tl kernel, the compiler chose it, so only what it is chosen from."""
    if k.c.kernel.language is not Language.GLUON:
        return (
            "the compiler chose this shared layout (a tl kernel cannot name one): change what it is chosen "
            "from, the tile's shape (a wider contiguous dimension) or the operand's order (load it "
            "transposed), and compare with `tritonscope diff`; Gluon (gl.SwizzledSharedLayout) chooses it"
        )
    nvidia = " or NVMMASharedLayout" if k.target.backend == "cuda" else ""
    return (
        f"swizzle the shared layout (gl.SwizzledSharedLayout(vec, per_phase, max_phase, order){nvidia}), "
        "or move it in a layout whose lanes walk its contiguous dimension"
    )


def partitions(k: Kernel) -> list[Finding]:
    found = []
    for op, held in warp_specialize.held_by_op(k.c.partitions):
        total = f"; together {held:,} of the SM's {REGISTERS_PER_SM:,} registers while they run" if held else ""
        for p in op:
            where = ", ".join(map(str, p.python_lines[:10])) or "none of the kernel's lines"
            found.append(
                Finding(
                    PARTITION,
                    p.python_lines[0] if p.python_lines else None,
                    f"warp-specialized {p.name}: {count(p.warps, 'warp')}, {_budget(p)}; runs lines {where}",
                    f"TTGIR lines {p.ttgir_lines[0]}-{p.ttgir_lines[1]}{total}",
                    "a worker's registers are what worker_num_regs asks (gl.warp_specialize), rounded up to 8, "
                    "the largest ask of its warp group; the default partition gets what the others leave of "
                    "maxnreg x every thread: lower the ask of a worker that only issues copies, for the math",
                    lines=p.python_lines,
                )
            )
    return found


def _budget(p) -> str:
    if p.registers is not None:
        asked = f", asked {p.requested}" if p.requested is not None and p.requested != p.registers else ""
        return f"{p.registers} registers per thread (setmaxnreg{asked})"
    if p.requested is not None:
        return f"asked {p.requested} registers per thread, not reallocated: every warp keeps the launch's"
    return "no registers asked: every warp keeps the launch's"
