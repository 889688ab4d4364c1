"""MLIR's remarks on the kernel (Triton's compiler, under MLIR_ENABLE_DIAGNOSTICS=remarks): each is
given to the finding it explains, by its words and its line, and the others are findings of their own."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .kernel import Kernel
from .kinds import MATRIX, NARROW, NOT_PIPELINED, REMARK, TCGEN05
from .model import Finding

# What a remark is about, by its words: one on a line that has a finding of these kinds is that
# finding's (its evidence, and for the dot its cause); any other is a finding of its own.
_TOPICS = (
    ("MMA version", (MATRIX, TCGEN05)),  # AccelerateMatmul: "MMA version 3 acceleration not applied ..."
    ("falls back to the FMA path", (MATRIX,)),  # sm75: "Dot op using MMA for compute capability 75 ... deprecated"
    ("vectorization fails", (NARROW,)),  # LoadStoreOpToLLVM: "Warning: vectorization fails vec = 1 ..."
    ("Pipelining load", (NOT_PIPELINED, NARROW)),  # the pipeliner: "... cannot use vectorized copy ..."
    ("pipelined load for this operand", (NOT_PIPELINED,)),  # AccelerateMatmul: "Forcing a different order ..."
)


def with_remarks(k: Kernel, found: list[Finding]) -> list[Finding]:
    """The findings with each remark given to the one it is about, and the others as findings of their own."""
    for remark in k.c.remarks:
        line = k.remark_line(remark)
        kinds = next((kinds for words, kinds in _TOPICS if words in remark.message), ())
        about = next((i for i, f in enumerate(found) if f.kind in kinds and line in (f.line, *f.lines)), None)
        if about is None:
            found.append(_remark_finding(k, remark, line))
        elif remark.text not in found[about].remarks:
            found[about] = replace(found[about], remarks=(*found[about].remarks, remark.text))
    return found


def _remark_finding(k: Kernel, remark, line: int | None) -> Finding:
    where = ", called from ".join(f"{Path(file).name}:{n}" for file, n in remark.locations) or "no location"
    return Finding(
        REMARK,
        line,
        f"Triton's compiler {'warns' if remark.severity == 'warning' else 'remarks'}: {remark.message}",
        f"MLIR {remark.severity} at {where}" + "".join(f"; {note}" for note in remark.notes),
        "",
        remarks=(remark.text,),
    )
