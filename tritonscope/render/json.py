"""Every `--json` document: one envelope {schema, tool, kind, ...} around each command's body.

The bodies are described in docs/json-schema.md. Non-finite floats become strings and
values are typed (numbers, booleans, null, strings), so strict JSON parsers read every
document.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..analysis import linemap
from ..core.model import SCHEMA_VERSION, Compilation, to_jsonable
from ..results.dump import DumpResult
from .json_launch import cell_body, with_launch
from .registry import part

if TYPE_CHECKING:  # the result types, named in annotations only: `dump --json` imports none of the others
    from ..results.bench import BenchResult, ReleaseTimings, ReplayResult
    from ..results.cache import CacheListing
    from ..results.captures import CaptureDiffResult
    from ..results.catalog import EnvsListing, KernelList, SamplesResult
    from ..results.check import CheckResult
    from ..results.diff import DiffResult
    from ..results.explain import ExplainResult, ProfileResult
    from ..results.explore import CompileFailure, ExploreResult
    from ..results.fit import FitResult
    from ..results.grid import GridResult
    from ..results.layout import LayoutListResult, LayoutResult, SharedLayoutResult
    from ..results.passes import PassesComparison, PassesResult
    from ..results.space import SpaceResult
    from ..results.trace import TraceResult


def envelope(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"schema": SCHEMA_VERSION, "tool": {"name": "tritonscope", "version": __version__}, "kind": kind, **body}


class JsonRenderer:
    def __init__(self, full: bool = False):
        self.full = full  # passes --show --full: the IR after each shown pass

    def render(self, result: Any) -> str:
        return json.dumps(to_jsonable(envelope(result.kind, self.body(result))), indent=2, allow_nan=False) + "\n"

    def body(self, result: Any) -> dict[str, Any]:
        """A result's document without the envelope, drawn by the part render/registry.py names."""
        return getattr(self, part(type(result), "json"))(result)

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
                "configs": [row(k, i) for i in range(len(k.rows))],
            }
            for k in r.kernels
        ]
        return {"triton": r.triton_version, "budgets": list(r.budgets), "kernels": kernels, "notes": list(r.notes)}

    def samples(self, r: SamplesResult):
        rows = [
            {"name": s.name, "kernels": list(s.kernels), "description": s.description, "path": str(s.path)}
            for s in r.samples
        ]
        return {"samples": rows}

    def explore(self, r: ExploreResult):
        """The explorer's variant as explain's document, with the releases it can switch to."""
        return {**self.explain(r.explained), "releases": list(r.releases)}

    def explore_failure(self, r: CompileFailure):
        where = {"file": r.where[0], "line": r.where[1]} if r.where else None
        return {"kernel_file": r.request.file, "message": r.message, "hint": r.hint, "where": where}

    def kernel_list(self, r: KernelList):
        return {"file": str(r.path), "kernels": list(r.kernels), "defaults": r.defaults, "notices": list(r.notices)}

    def dump(self, r: DumpResult):
        body = compilation_body(r.compilation)
        shown = {stage.value for stage in r.stages}  # --stage: only those, in the text and the line map
        body["stages"] = {name: text for name, text in body["stages"].items() if name in shown}
        for entry in body["line_map"]:
            entry["stages"] = {name: lines for name, lines in entry["stages"].items() if name in shown}
        body["line_map"] = [entry for entry in body["line_map"] if entry["stages"]]
        if r.source_lines is not None:  # --line / --lines: what those Python lines became, only
            body["selected_lines"] = sorted(line for _, line in r.source_lines)
            body["line_map"] = [e for e in body["line_map"] if (e["file"], e["line"]) in r.source_lines]
        if r.schedule is not None:  # --control
            body["sass_control"] = schedule_body(r.schedule)
        return body

    def diff(self, r: DiffResult):
        return {"variants": [_variant(i, o) for i, o in enumerate(r.outcomes)], "diffs": _diffs(r)}

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

    def trace(self, r: TraceResult):
        body = {"out": str(r.out), "returncode": r.returncode, "kernels": list(r.kernels), "launches": r.launches}
        body.update(target=r.target, stopped=r.stopped, on_read=r.on_read, answered_reads=list(r.answered))
        return body

    def envs(self, r: EnvsListing):
        envs = [{"release": release, "path": str(path), "bytes": size} for release, path, size in r.envs]
        return {"folder": str(r.folder), "running": r.running, "envs": envs}

    def layout_list(self, r: LayoutListResult):
        return {
            "kernel": r.kernel,
            "language": r.language,
            "target": r.target,
            "layouts": [asdict(u) for u in r.layouts],
            "accesses": [asdict(a) for a in r.accesses],
        }

    def shared_layout(self, r: SharedLayoutResult):
        banks = {",".join(map(str, e)): b for e, b in sorted(r.banks.items())} if r.banks is not None else None
        return {
            "layout": r.layout,
            "gluon": r.gluon,
            "shape": list(r.shape),
            "bits": r.bits,
            "banks": banks,
            "banks_from": r.banks_from,
            "accesses": [asdict(a) for a in r.accesses],
            "origin": r.origin,
        }

    def grid(self, r: GridResult):
        body: dict[str, Any] = {
            "kernel": r.variant.kernel,
            "grid": list(r.size),
            "programs": [asdict(p) for p in r.programs],
        }
        if r.wave:
            body["wave"] = {"programs": r.wave, "distinct_input_tiles": r.wave_loads}
        return body

    def layout(self, r: LayoutResult):
        own = r.ownership
        owners = {",".join(map(str, e)): [list(o) for o in who] for e, who in sorted(own.owners.items())}
        return {
            "layout": r.layout.text,
            "origin": r.origin,
            "shape": list(own.shape),
            "warps": own.warps,
            "lanes": own.lanes,
            "registers": own.registers,
            "owners": owners,
        }

    def bench(self, r: BenchResult):
        return {"file": r.file, "peak": asdict(r.peak), "results": [asdict(m) for m in r.results]}

    def replay(self, r: ReplayResult):
        return {
            "capture": r.reference,
            "kernel": r.kernel,
            "file": r.file,
            "peak": asdict(r.peak),
            "launches": [asdict(t) for t in r.launches],
        }

    def cache(self, r: CacheListing):
        return {
            "folder": str(r.folder),
            "kernels": [_entry(r.folder, e) for e in r.entries],
            "skipped": list(r.skipped),
            "simulated_device": r.simulated,
            "autotune": list(r.autotune),
        }

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
                    "broken": [asdict(b) for b in o.broken],
                    "findings": [finding_body(f) for f in o.findings],
                }
            )
        return {"ok": r.ok, "exit_code": r.exit_code, "entries": entries, "notes": list(r.notes)}

    def capture_diff(self, r: CaptureDiffResult):
        from .json_captures import capture_diff_body

        return capture_diff_body(r)

    def release_timings(self, r: ReleaseTimings):
        return {
            "subject": r.subject,
            "releases": list(r.releases),
            "runs": [None if run is None else self.body(run) for run in r.runs],
            "errors": list(r.errors),
            "ratios": [{"launch": key, "ratios": ratios} for key, ratios in r.ratios()],
            "passes": None if r.passes is None else self.passes_compare(r.passes),
            "passes_error": r.passes_error,
        }


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


def resources_body(c: Compilation) -> dict[str, Any]:
    resources = to_jsonable(c.resources)
    resources["occupancy"]["percent"] = round(c.resources.occupancy.percent, 1)
    return resources


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


def schedule_body(schedule) -> dict[str, Any]:
    """Each SASS instruction's word, control code and waits (analysis/scoreboards.py)."""
    instructions = []
    for s in schedule.instructions:
        k = s.control
        control = {"text": k.text, "stall": k.stall, "yield": k.yield_hint, "write": k.write, "read": k.read}
        control.update(wait=list(k.wait), reuse=list(k.reuse))
        waits = [{"scoreboard": w.scoreboard, "producers": list(w.producers), "partial": w.partial} for w in s.waits]
        entry = {"offset": s.offset, "word": f"0x{s.word:032x}", "text": s.text, "lines": list(s.lines)}
        instructions.append({**entry, "control": control, "waits": waits})
    return {"layout": schedule.layout, "instructions": instructions}


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
    }


def compilation_body(c: Compilation) -> dict[str, Any]:
    resources = resources_body(c)
    return {
        "triton_version": c.triton_version,
        "kernel": c.kernel,
        "variant": c.variant,
        "command": c.variant.command_line(),
        "options": c.options,
        "resources": resources,
        "metadata": c.metadata,
        "compile_seconds": round(c.compile_seconds, 4),
        "stage_seconds": {name: round(seconds, 4) for name, seconds in c.stage_seconds},
        "cache_hit": c.cache_hit,
        "binary": {"format": c.binary_ext, "bytes": len(c.binary)},
        "notices": list(c.notices),
        "stages": {stage.value: text for stage, text in c.stages.items()},
        "line_map": linemap.by_source(c),
        "launches": list(c.launches),
        "warp_specialization": [asdict(p) for p in c.partitions],
    }


def report(c: Compilation) -> str:
    """The dump document of one compilation: what `dump --json` prints and `dump -o` saves."""
    return JsonRenderer().render(DumpResult(c, tuple(c.stages)))


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


def _names(result) -> list[str]:
    return [record.name for record in result.records]


def _diverging(record, diff: tuple[str, ...]) -> dict[str, Any] | None:
    """A pass of `passes --vary`'s divergence: where it ran and what it did."""
    if record is None:
        return None
    return {"index": record.index, "name": record.name, "label": record.label, "diff": list(diff)}


def _compile_time(c, growth) -> dict[str, Any]:
    """explain --compile-time: the stages' seconds, and each line's operations at each IR level."""
    lines = [
        {"line": g.line, "code": g.code, "operations": {s.value: n for s, n in g.counts.items()}, "growth": g.growth}
        for g in growth
    ]
    return {"stage_seconds": {name: seconds for name, seconds in c.stage_seconds}, "lines": lines}


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


def _entry(folder, e) -> dict[str, Any]:
    return {
        "name": e.name,
        "reference": f"{folder}/:{e.name}",
        "target": e.target,
        "folder": str(e.folder),
        "options": {k: e.metadata.get(k) for k in ("num_warps", "num_stages", "num_ctas")},
        "stages": list(e.stages),
        "bytes": e.size,
        "modified": e.modified,
        "captured": e.specialization is not None,
        "launches": list(e.launches),
    }
