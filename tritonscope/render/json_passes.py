"""`passes`' `--json` documents: the pass pipeline, what the shown passes changed, where two
pipelines diverge, and `--time`'s steps (docs/json-schema.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .json import JsonRenderer

if TYPE_CHECKING:  # the result types, named in annotations only
    from ..results.passes import PassesComparison, PassesResult


class PassesJson(JsonRenderer):
    """One pass pipeline, or two compared."""

    def passes(self, r: PassesResult):
        body = {
            "triton_version": r.triton_version,
            "variant": r.variant,
            "passes": [_pass(p, r.selected, r.diffs, self.full) for p in r.records],
        }
        if r.llvm_records is not None:
            body["llvm_passes"] = list(r.llvm_records)
        if r.timing is not None:
            body["timing"] = _timing(r.timing)
        return body

    def passes_compare(self, r: PassesComparison):
        d = r.divergence
        body: dict[str, Any] = {
            "variants": [
                {"label": label, "triton_version": p.triton_version, "variant": p.variant, "passes": _names(p)}
                for label, p in zip(r.labels, r.results, strict=True)
            ],
            "divergence": {
                "kind": d.kind,
                "first": _diverging(d.first, r.first_diff),
                "second": _diverging(d.second, r.second_diff),
            },
        }
        if d.first is not None and d.second is not None and d.kind != "input":
            body["divergence"]["output_diff"] = list(r.across)
        return body


def _pass(p, selected, diffs: dict[int, tuple[str, ...]], full: bool) -> dict[str, Any]:
    data = {
        "index": p.index,
        "name": p.name,
        "class": p.class_name,
        "level": p.level,
        "changed": p.changed,
        "added": p.added,
        "removed": p.removed,
        "occurrence": p.occurrence,
        "occurrences": p.occurrences,
        "substeps": [name for name, _ in p.substeps],
    }
    if selected is not None and p in selected:
        data["diff"] = list(diffs[p.index])
        if full:
            data["ir_after"] = p.after
    return data


def _timing(t) -> dict[str, Any]:
    """passes --time: every step in order with its seconds; `measured` is what timers measured."""
    steps = []
    for s in t.steps:
        step = {"stage": s.stage, "name": s.name, "kind": s.kind, "seconds": s.seconds, "index": s.index}
        step["ops"] = list(s.ops) if s.ops is not None else None
        step["lines"] = list(s.lines) if s.lines is not None else None
        steps.append(step)
    return {
        "total_seconds": t.total,
        "measured_seconds": t.measured,
        "stages": [{"stage": name, "seconds": seconds} for name, seconds in t.stages],
        "steps": steps,
        "slowest": [t.steps.index(s) for s in t.slowest()],
        "llvm_codegen_passes": [{"name": name, "seconds": seconds} for name, seconds in t.llvm_passes],
    }


def _names(result) -> list[str]:
    return [record.name for record in result.records]


def _diverging(record, diff: tuple[str, ...]) -> dict[str, Any] | None:
    """A pass of `passes --vary`'s divergence: where it ran and what it did."""
    if record is None:
        return None
    return {"index": record.index, "name": record.name, "label": record.label, "diff": list(diff)}
