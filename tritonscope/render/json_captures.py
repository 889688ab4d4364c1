"""The `capture diff` JSON body (docs/json-schema.md): one entry per kernel compile pair."""

from __future__ import annotations

from typing import Any

from ..analysis.capture_pairs import KernelFigures, KernelPair
from ..results.capture_diff import CaptureDiffResult, Comparison
from .json import JsonRenderer


def capture_diff_body(r: CaptureDiffResult) -> dict[str, Any]:
    comparisons = [comparison_body(c) for c in r.comparisons]
    first = comparisons[0] if comparisons else {"before": None, "after": None, "counts": {}, "kernels": []}
    return {**first, "comparisons": comparisons, "notes": list(r.notes), "failures": list(r.failures)}


def comparison_body(c: Comparison) -> dict[str, Any]:
    return {"before": c.before, "after": c.after, "counts": c.counts, "kernels": [pair_body(p) for p in c.pairs]}


def pair_body(p: KernelPair) -> dict[str, Any]:
    return {
        "name": p.name,
        "status": p.status,
        "regression": p.status == "changed" and p.regression,
        "paired": p.how or ("exact" if p.before and p.after else None),
        "before": side_body(p.before),
        "after": side_body(p.after),
        "changes": [
            {"figure": c.figure, "before": c.before, "after": c.after, "delta": c.delta, "regression": c.regression}
            for c in p.changes
        ],
        "findings_appeared": list(p.appeared),
        "findings_gone": list(p.gone),
    }


def side_body(k: KernelFigures | None) -> dict[str, Any] | None:
    if k is None:
        return None
    return {
        "reference": k.reference,
        "hash": k.hash,
        "target": k.target,
        "triton_version": k.triton_version,
        "specialization": specialization_body(k),
        "launch_shapes": list(k.shapes),
        "figures": k.figures,
        "instruction_mix": k.mix,
        "findings": None
        if k.findings is None
        else [{"kind": f.kind, "line": f.line, "message": f.message} for f in k.findings],
    }


_PARTS = {"s": "signature", "c": "constexprs", "h": "hints"}


def specialization_body(k: KernelFigures) -> dict[str, dict[str, str]]:
    """The specialization as {signature, constexprs, hints, options}, each by name."""
    body: dict[str, dict[str, str]] = {part: {} for part in (*_PARTS.values(), "options")}
    for key, value in k.specialization:
        prefix, _, name = key.rpartition(":")
        body[_PARTS.get(prefix, "options")][name] = value
    return body


class CapturesJson(JsonRenderer):
    """Two captures compared: `diff DIR1/ DIR2/`."""

    def capture_diff(self, r: CaptureDiffResult) -> dict[str, Any]:
        return capture_diff_body(r)
