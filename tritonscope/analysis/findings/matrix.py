"""Matrix products: a `tl.dot` on FMA units, or on an older generation of matrix instructions than
the target has (sm90's mma.sync where wgmma could run), with the cause where the TTGIR shows it."""

from __future__ import annotations

import re

from .. import ttgir
from ..layouts import tensor_type
from .kernel import Kernel
from .kinds import MATRIX
from .model import Finding


def dots(k: Kernel) -> list[Finding]:
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
        said = [r.message for r in k.remarks_at(lines[0]) if r.message.startswith("MMA version")]
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


def _result_layout(k: Kernel, op: ttgir.Op) -> str | None:
    typed = tensor_type(op.text)
    if typed is None:
        return None
    layout = k.module.aliases.get(typed[1], typed[1])
    return layout.split("<", 1)[0] + (
        f" v{layout.split('versionMajor = ')[1].split(',')[0]}" if "versionMajor" in layout else ""
    )


def _dot_problem(k: Kernel, op: ttgir.Op, result: str | None) -> tuple[str, str, str] | None:
    shapes = [tuple(int(d) for d in s.split("x")) for s in _dims(op.text)]
    if result and result.startswith("#ttg.blocked") and k.target.backend == "cuda" and k.target.arch == 75:
        return (  # Triton 3's AccelerateMatmul gives Turing no MMA: its remark says the FMA path
            "tl.dot runs on FMA units, not matrix instructions",
            "Triton lowers dots to FMA on Turing (sm75) whatever the operands",
            "compile for sm80 or newer to get matrix instructions: Triton gives Turing none",
        )
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
