"""Findings about what a kernel's author controls in Gluon, or asked for with warp specialization:
shared-memory accesses that conflict on banks (Gluon's own count), warp-specialized partitions
and their register budgets, and layout conversions through shared memory the source never wrote.
Kept apart from findings.py so its detectors stay one list; app/explain.py joins the two."""

from __future__ import annotations

from dataclasses import replace

from ..core.model import Compilation
from ..core.stages import Language
from .findings import CONVERSION, Finding
from .module_layouts import SharedAccess

BANK_CONFLICTS = "bank-conflicts"
PARTITION = "warp-partition"
REGISTERS_PER_SM = 65536  # every NVIDIA target tritonscope knows: the budgets of all partitions share it


def find(c: Compilation, found: tuple[Finding, ...], accesses: tuple[SharedAccess, ...]) -> tuple[Finding, ...]:
    """The findings of findings.find with these added, and its conversions marked when unwritten."""
    marked = tuple(_unwritten(c, f) if f.kind == CONVERSION else f for f in found)
    return marked + tuple(_conflicts(accesses)) + tuple(_partitions(c))


def _unwritten(c: Compilation, finding: Finding) -> Finding:
    """A Gluon kernel's conversion on a line with no convert_layout: the compiler chose it."""
    if c.kernel.language is not Language.GLUON or finding.line is None:
        return finding
    source = c.kernel.source.splitlines()
    index = finding.line - c.kernel.first_line
    text = source[index] if 0 <= index < len(source) else ""
    if "convert_layout" in text:
        return finding
    return replace(finding, message=f"not written in the kernel (no convert_layout on this line): {finding.message}")


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
    if not c.partitions:
        return []
    budgets = [(p.warps, p.registers) for p in c.partitions if p.registers]
    # Registers are handed out per warpgroup of 4 warps: a 1-warp worker holds a whole group's.
    used = sum(-(-warps // 4) * 4 * 32 * registers for warps, registers in budgets)
    total = f"; together {used:,} of the SM's {REGISTERS_PER_SM:,} registers per block" if budgets else ""
    found = []
    for p in c.partitions:
        budget = f"{p.registers} registers per thread" if p.registers else "no register budget asked"
        where = ", ".join(map(str, p.python_lines[:10])) or "none of the kernel's lines"
        found.append(
            Finding(
                PARTITION,
                p.python_lines[0] if p.python_lines else None,
                f"warp-specialized {p.name}: {p.warps} warp(s), {budget}; runs lines {where}",
                f"TTGIR lines {p.ttgir_lines[0]}-{p.ttgir_lines[1]}{total}",
                "a worker's registers are worker_num_regs (gl.warp_specialize); the default partition's are what "
                "the kernel's maxnreg leaves: lower a worker's that only issues copies, raise the default's for math",
                lines=p.python_lines,
            )
        )
    return found
