"""The `--json` documents of many variants of one kernel: `diff`, `diff --space` and `fit`
(docs/json-schema.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .json import JsonRenderer
from .json_dump import resources_body

if TYPE_CHECKING:  # the result types, named in annotations only
    from ..results.diff import DiffResult
    from ..results.fit import FitResult
    from ..results.space import SpaceResult


class VariantsJson(JsonRenderer):
    """Variants side by side: their figures, their diffs, the configs that fit each target."""

    def diff(self, r: DiffResult):
        return {"variants": [_variant(i, o) for i, o in enumerate(r.outcomes)], "diffs": _diffs(r)}

    def space(self, r: SpaceResult):
        def point(index: int) -> dict[str, Any]:
            p = r.points[index]
            return {"index": index, "label": p.label, "figures": p.figures, "cause": p.cause, "error": p.error}

        body: dict[str, Any] = {"axes": list(r.axes), "static": r.static, "count": len(r.points)}
        body["failures"] = r.failures
        body["pareto"] = [point(i) for i in r.pareto]
        body["sort"], body["top"] = r.sort, [point(i) for i in r.top]
        body["points"] = [point(i) for i in range(len(r.points))]
        return body

    def fit(self, r: FitResult):
        from .json_launch import cell_body  # the launch estimate's figures: fit's alone (diff's JSON needs none)

        def row(kernel, index: int) -> dict[str, Any]:
            config = kernel.rows[index]
            cells = zip(kernel.targets, kernel.cells[index], strict=True)
            body = {"label": config.label, "values": config.values, "config": config.index, "launched": config.launched}
            return body | {"cells": {target: cell_body(cell) for target, cell in cells}}

        kernels = [
            {
                "kernel": k.kernel,
                "file": k.file,
                "specialization": k.specialization,
                "targets": list(k.targets),
                "fitting": {t: list(k.fitting(t)) for t in k.targets},
                "ranked": {t: list(k.ranked(t)) for t in k.targets} if r.ranked else None,
                "sizes": list(k.sizes),
                "configs": [row(k, i) for i in range(len(k.rows))],
            }
            for k in r.kernels
        ]
        body = {"triton": r.triton_version, "budgets": list(r.budgets), "kernels": kernels, "notes": list(r.notes)}
        return body | {"partial": r.partial}


def _variant(index: int, outcome) -> dict[str, Any]:
    entry = {"index": index, "label": outcome.label, "ok": outcome.ok, "error": outcome.error}
    if outcome.ok:
        c = outcome.compilation
        entry.update(
            command=c.variant.command_line(),
            triton_version=c.triton_version,
            variant=c.variant,
            options=c.options,
            resources=resources_body(c),  # as in the dump report: occupancy with its percent
            compile_seconds=round(c.compile_seconds, 4),
            stage_seconds={name: round(seconds, 4) for name, seconds in c.stage_seconds},
            cache_hit=c.cache_hit,
        )
    return entry


def _diffs(r: DiffResult) -> list[dict[str, Any]]:
    return [
        {"stage": d.stage.value, "old": d.old, "new": d.new, "changed": d.changed, "unified": list(unified)}
        for d, unified in zip(r.diffs, r.unified, strict=True)
    ]
