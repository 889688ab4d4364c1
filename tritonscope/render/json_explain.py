"""The `--json` documents of why a kernel is slow: `explain`, `profile`, `check`, and the explorer's
variant (explain's document) or its failed compile (docs/json-schema.md).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from ..core.model import to_jsonable
from .json import JsonRenderer
from .json_dump import resources_body
from .json_launch import with_launch

if TYPE_CHECKING:  # the result types, named in annotations only
    from ..results.check import CheckResult
    from ..results.explain import ExplainResult, ProfileResult
    from ..results.explore import CompileFailure, ExploreResult


class ExplainJson(JsonRenderer):
    """Findings, the cost and estimated time of each line, measured counters and budgets."""

    def explain(self, r: ExplainResult):
        c = r.compilation
        body = {
            "triton_version": c.triton_version,
            "kernel": c.kernel.name,
            "file": c.kernel.file,
            "target": c.variant.target,
            "command": c.variant.command_line(),
            "variant": c.variant,
            "options": c.options,
            "resources": resources_body(c),
            "live_registers": r.live_registers,
            "lines": [line_body(cost) for cost in r.lines],
            "findings": [finding_body(f) for f in r.findings],
            "notes": list(r.notes),
            "time": with_launch(time_body(r.time), r.launch, r.launch_note),
        }
        if r.growth is not None:
            body["compile_time"] = _compile_time(c, r.growth)
        return body

    def explore(self, r: ExploreResult):
        """The explorer's variant as explain's document, with the releases it can switch to."""
        return {**self.explain(r.explained), "releases": list(r.releases)}

    def explore_failure(self, r: CompileFailure):
        where = {"file": r.where[0], "line": r.where[1]} if r.where else None
        return {"kernel_file": r.request.file, "message": r.message, "hint": r.hint, "where": where}

    def profile(self, r: ProfileResult):
        m, static = r.measured, {cost.line: cost for cost in r.static}
        return {
            "kernel": r.kernel,
            "file": r.file,
            "command": list(r.command),
            "target": r.compilation.variant.target if r.compilation else None,
            "mapped_by": m.mapped_by,
            "samples": m.samples,
            "samples_not_issued": m.samples_not_issued,
            "instructions_executed": m.executed,
            "unattributed_samples": m.unattributed_samples,
            "stalls": dict(m.stalls),
            "hottest_line": m.hottest.line if m.hottest and m.hottest.samples else None,
            "lines": [
                {**_measured_line(line, static.get(line.line)), "findings": [f.kind for f in r.findings_on(line.line)]}
                for line in m.lines
            ],
            "findings": [finding_body(f) for f in r.findings],
            "notes": list(r.notes),
            "time": time_body(r.time),
        }

    def check(self, r: CheckResult):
        entries = []
        for o in r.outcomes:
            entries.append(
                {
                    "name": o.entry.name,
                    "command": o.compilation.variant.command_line() if o.compilation else None,
                    "ok": o.ok,
                    "error": o.error,
                    "figures": o.figures,
                    "budgets": [b.text for b in o.entry.budgets],
                    "baseline": o.entry.baseline,
                    "fit_targets": list(o.fit_targets),
                    "broken": [asdict(b) for b in o.broken],
                    "findings": [finding_body(f) for f in o.findings],
                    # a compile after a mark within the limit: why it came (a broken one's is its finding)
                    **({"why": o.why} if o.why is not None and not o.broken else {}),
                }
            )
        return {"ok": r.ok, "exit_code": r.exit_code, "entries": entries, "notes": list(r.notes)}


def _measured_line(line, static) -> dict[str, Any]:
    """One Python line's measured figures (analysis/measured.py), with explain's static cost where read."""
    return {
        "line": line.line,
        "code": line.code,
        "samples": line.samples,
        "samples_not_issued": line.samples_not_issued,
        "instructions_executed": line.executed,
        "thread_instructions_executed": line.thread_executed,
        "stalls": dict(line.stalls),
        "accesses": [asdict(a) for a in line.accesses],
        "static": line_body(static) if static is not None else None,
    }


def line_body(cost) -> dict[str, Any]:
    """One Python line's cost (analysis/cost.py): `line` is a line of the kernel's own file."""
    instructions = to_jsonable(cost.instructions)
    instructions.update(tma=cost.tma, async_copy_widths=to_jsonable(cost.async_copy_widths))
    return {
        "line": cost.line,
        "code": cost.code,
        "instructions": instructions,
        "conversions": to_jsonable(cost.conversions),
        "shared_conversion_bytes": cost.shared_conversion_bytes,
        "live_registers": cost.live_registers,
    }


def finding_body(f) -> dict[str, Any]:
    from ..analysis.findings import what_if_flags

    return {
        "kind": f.kind,
        "line": f.line,
        "message": f.message,
        "evidence": f.evidence,
        "suggestion": f.suggestion,
        "lines": list(f.lines) or ([f.line] if f.line is not None else []),
        "what_if": what_if_flags(f.what_if) if f.what_if else None,
        "verified": f.verified or None,
        "remarks": list(f.remarks),
        "time_share": f.time_share,
    }


def time_body(estimate) -> dict[str, Any] | None:
    """explain's time estimate (analysis/line_time.py): per line, its cycles per warp, share and
    evidence (issue, waits, drain; what it waits on), most time first; None without SASS."""
    if estimate is None:
        return None
    return {
        "cycles": round(estimate.cycles, 1),
        "bound": estimate.bound,
        "warps_per_scheduler": estimate.warps_per_scheduler,
        "figures": estimate.family,
        "control_codes": estimate.layout,
        "assumptions": list(estimate.assumptions),
        "lines": [_line_time(t) for t in estimate.ranked],
    }


def _line_time(t) -> dict[str, Any]:
    waits = [
        {"lines": list(w.lines), "kind": w.kind, "cycles": round(w.cycles, 1), "waits": w.waits} for w in t.waits_on
    ]
    return {
        "line": t.line,
        "code": t.code,
        "share": round(t.share, 4),
        "cycles": round(t.cycles, 1),
        "issue": round(t.issue, 1),
        "waited": round(t.waited, 1),
        "drain": round(t.drain, 1),
        "instructions": t.instructions,
        "waits_on": waits,
        "drained": list(t.drained),
        "calls": list(t.calls),
    }


def _compile_time(c, growth) -> dict[str, Any]:
    """explain --compile-time: the stages' seconds, each line's operations at each IR level (and the
    loops that unrolled it), and the line whose operations dominate."""
    from ..analysis.compile_time import dominant

    lines = [
        {
            "line": g.line,
            "code": g.code,
            "operations": {s.value: n for s, n in g.counts.items()},
            "growth": g.growth,
            "unrolled_by": [{"line": u.line, "loop": u.loop, "copies": u.copies} for u in g.unrolled_by],
        }
        for g in growth
    ]
    top = dominant(growth)
    most = (
        {"line": top[0].line, "stage": top[1].value, "operations": top[0].counts[top[1]], "share": round(top[2], 3)}
        if top
        else None
    )
    return {"stage_seconds": dict(c.stage_seconds), "lines": lines, "most_operations": most}
