"""The `--json` documents of recompiles (docs/json-schema.md): `recompiles DIR/` (each kernel's compiles,
their causes, the launch behind each, the fixes) and `recompiles DIR/ --shapes` (the compiles to come)."""

from __future__ import annotations

from typing import Any

from ..results.recompiles import (
    Fix,
    KernelForecast,
    KernelHistory,
    Launch,
    PredictionResult,
    RecompilesResult,
    TorchRecompile,
    Variant,
)
from .json import JsonRenderer


def launch_body(launch: Launch | None) -> dict[str, Any] | None:
    if launch is None:
        return None
    return {"file": launch.file, "line": launch.line, "where": launch.where, "values": launch.values}


def fix_body(fix: Fix | None) -> dict[str, Any] | None:
    if fix is None:
        return None
    return {
        "kind": fix.kind,
        "param": fix.param,
        "said": fix.said,
        "code": fix.code,
        "proved": fix.proved,
        "proof": fix.proof,
        "cost": fix.cost,
    }


def variant_body(v: Variant) -> dict[str, Any]:
    return {
        "number": v.number,
        "hash": v.hash,
        "role": v.role,
        "compared_with": v.compared_with,
        "causes": [
            {"kind": c.kind, "param": c.param, "before": c.before, "after": c.after, "said": c.said} for c in v.causes
        ],
        "specialization": v.specialization,
        "compile_seconds": v.compile_seconds,
        "launch": launch_body(v.launch),
        "marks_passed": list(v.marks_passed),
        "torch_compile": v.torch_compile,
    }


def kernel_body(k: KernelHistory) -> dict[str, Any]:
    return {
        "name": k.name,
        "file": k.file,
        "line": k.line,
        "generated_by_torch_compile": k.generated,
        "generated_for": k.generated_for,
        "compiles": sum(1 for v in k.variants if v.counts_as_compile),
        "recompiles": k.recompiles,
        "compile_seconds": round(k.compile_seconds, 4),
        "variants": [variant_body(v) for v in k.variants],
        "fixes": [fix_body(f) for f in k.fixes],
    }


def torch_body(t: TorchRecompile) -> dict[str, Any]:
    return {
        "function": t.function,
        "file": t.file,
        "line": t.line,
        "compile_id": t.compile_id,
        "seconds": t.seconds,
        "launch": launch_body(t.launch),
        "reasons": list(t.reasons),
        "said": t.said,
        "marks_passed": list(t.marks_passed),
        "kernels": list(t.kernels),
        "fix": fix_body(t.fix),
        "eager": t.eager,
    }


class RecompilesJson(JsonRenderer):
    """A capture's recompiles, and the prediction of those to come."""

    def recompiles(self, r: RecompilesResult) -> dict[str, Any]:
        late = r.late() if r.after else []
        return {
            "folder": r.folder,
            "after": r.after,
            "compiles": r.compiles,
            "binaries": r.binaries,
            "compile_seconds": round(r.compile_seconds, 4),
            "marks": list(r.marks),
            "after_mark": None if r.after is None else {"compiles": len(late), "torch_compiles": len(r.late_torch())},
            "kernels": [kernel_body(k) for k in r.kernels],
            "torch_compiles": [torch_body(t) for t in r.torch],
            "notes": list(r.notes),
        }

    def prediction(self, r: PredictionResult) -> dict[str, Any]:
        return {
            "folder": r.folder,
            "warmup": r.warmup,
            "sizes": {name: {"low": lo, "high": hi} for name, (lo, hi) in r.sizes},
            "compiles": r.compiles if r.predicts or r.compiles else None,
            "seen_after_mark": r.seen_after_mark,
            "unfollowed": list(r.unfollowed),
            "notes": list(r.notes),
            "kernels": [forecast_body(k) for k in r.kernels],
            "torch_compiles": [
                {
                    "function": f.function,
                    "file": f.file,
                    "line": f.line,
                    "inputs": list(f.inputs),
                    "warmup_entries": f.warmup_entries,
                    "predicted": [
                        {"sizes": {n: list(s) for n, s in e.sizes.items()}, "said": e.text, "example": e.example}
                        for e in f.predicted
                    ],
                }
                for f in r.frames
            ],
        }


def forecast_body(k: KernelForecast) -> dict[str, Any]:
    return {
        "name": k.name,
        "file": k.file,
        "line": k.line,
        "params": list(k.params),
        "warmup_variants": k.warmup_variants,
        "predicted": [
            {
                "specialization": p.specialization,
                "where": p.where,
                "example": p.example,
                "arguments": p.arguments,
                "compiles": p.compiles,
                "differs": list(p.differs),
                "compile_seconds": p.compile_seconds,
            }
            for p in k.predicted
        ],
        "notes": list(k.notes),
    }
