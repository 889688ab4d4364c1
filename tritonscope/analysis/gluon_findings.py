"""Findings about what a kernel's author controls in Gluon, or asked for with warp specialization:
shared-memory accesses that conflict on banks (Gluon's own count), warp-specialized partitions
and their register budgets, and layout conversions through shared memory the source never wrote.
Kept apart from findings.py so its detectors stay one list; app/explain.py joins the two."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..core.model import Compilation
from ..core.stages import Language, Stage
from . import cost, warp_specialize
from .findings import CONVERSION, Finding
from .module_layouts import SharedAccess

BANK_CONFLICTS = "bank-conflicts"
PARTITION = "warp-partition"
REGISTERS_PER_SM = warp_specialize.REGISTERS_PER_SM


def find(c: Compilation, found: tuple[Finding, ...], accesses: tuple[SharedAccess, ...]) -> tuple[Finding, ...]:
    """The findings of findings.find with these added, and its conversions marked when unwritten."""
    marked = tuple(_unwritten(c, f) if f.kind == CONVERSION else f for f in found)
    return marked + tuple(_conflicts(accesses)) + tuple(_partitions(c))


def _unwritten(c: Compilation, finding: Finding) -> Finding:
    """A Gluon kernel's conversion that no gl.convert_layout call made: none of the Python lines its
    TTGIR op comes from (its own, in a helper too, and every call site, in any file) calls one.

    When it can fire: Gluon makes a ttg.convert_layout only for gl.convert_layout (the frontend's one
    create_convert_layout call, Triton 3.5 to 3.9), and its TTGIR pipeline (inliner, auto and coalesced
    encodings, TMA lowering, a canonicalizer that leaves ConvertLayoutOp alone, SCCP, CSE) neither adds
    nor moves one (3.9's sanitizer modes, fpsan and consan, left a kernel's conversion on its own line
    where we tried). So on these releases it fires only where the call is spelled otherwise (a
    convert_layout under another name); it is kept for a release or pipeline that changes that.
    tests/test_gluon.py holds the claim on every Gluon test kernel: a release that breaks it fails."""
    if c.kernel.language is not Language.GLUON or finding.line is None:
        return finding
    places = conversion_places(c, finding.line)
    if not places or any("convert_layout" in _python_line(c, file, n) for file, n in places):
        return finding
    return replace(finding, message=f"not written in the kernel (no convert_layout on its lines): {finding.message}")


def conversion_places(c: Compilation, line: int) -> set[tuple[str, int]]:
    """Every (file, line) the ttg.convert_layout ops reported on `line` of the kernel's file come from."""
    stage_map = c.line_map.get(Stage.TTGIR, {})
    places: set[tuple[str, int]] = set()
    for number, text in enumerate(c.stages.get(Stage.TTGIR, "").splitlines(), start=1):
        located = stage_map.get(number, ())
        if "ttg.convert_layout" in text and (c.kernel.file, line) in located:
            places.update(located)
    return places


def _python_line(c: Compilation, file: str, number: int) -> str:
    """A line of the kernel's file, or of another file a helper lives in ("" where it cannot be read)."""
    if file == c.kernel.file:
        return cost.source_texts(c).get(number, "")
    try:
        lines = Path(file).read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return lines[number - 1] if 0 < number <= len(lines) else ""


def _conflicts(accesses: tuple[SharedAccess, ...]) -> list[Finding]:
    found = []
    for a in accesses:
        if not a.conflicts:
            continue
        registers, shared = (t.split(",")[1].strip().rstrip(">") for t in (a.tensor_type, a.memdesc_type))
        verb = "reads" if a.op == "local_load" else "writes"
        found.append(
            Finding(
                BANK_CONFLICTS,
                a.python_lines[0] if a.python_lines else None,
                f"{a.op} {verb} shared memory ({shared}) in layout {registers} with {a.conflicts} bank "
                f"conflict(s) per instruction",
                f"TTGIR line {a.ttgir_line}: {a.tensor_type} <-> {a.memdesc_type}; Gluon's gl.bank_conflicts "
                f"counts {a.conflicts} extra wavefront(s)",
                "swizzle the shared layout (gl.SwizzledSharedLayout(vec, per_phase, max_phase, order) or "
                "NVMMASharedLayout), or move it in a layout whose lanes walk its contiguous dimension",
                lines=a.python_lines,
            )
        )
    return found


def _partitions(c: Compilation) -> list[Finding]:
    found = []
    for op, held in warp_specialize.held_by_op(c.partitions):
        total = f"; together {held:,} of the SM's {REGISTERS_PER_SM:,} registers while they run" if held else ""
        for p in op:
            where = ", ".join(map(str, p.python_lines[:10])) or "none of the kernel's lines"
            found.append(
                Finding(
                    PARTITION,
                    p.python_lines[0] if p.python_lines else None,
                    f"warp-specialized {p.name}: {p.warps} warp(s), {_budget(p)}; runs lines {where}",
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
