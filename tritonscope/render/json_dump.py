"""`dump`'s and `compare`'s `--json` documents: one compilation, its stages, line map and resources
(docs/json-schema.md); the resources and the body of a compilation are shared with other families.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from ..analysis import linemap
from ..core.model import Compilation, to_jsonable
from .json import JsonRenderer

if TYPE_CHECKING:  # the result types, named in annotations only
    from ..results.dump import DumpResult


class DumpJson(JsonRenderer):
    """A compilation's document: `dump --json` and `dump -o`'s report.json."""

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


def resources_body(c: Compilation) -> dict[str, Any]:
    resources = to_jsonable(c.resources)
    resources["occupancy"]["percent"] = round(c.resources.occupancy.percent, 1)
    return resources


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
