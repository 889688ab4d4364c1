"""The JSON report: one document per compilation, described in docs/json-schema.md."""

from __future__ import annotations

import json

from .. import __version__, linemap
from ..model import SCHEMA_VERSION, Compilation, to_jsonable


def report(compilation: Compilation) -> dict:
    resources = to_jsonable(compilation.resources)
    resources["occupancy"]["percent"] = round(compilation.resources.occupancy.percent, 1)
    return {
        "schema": SCHEMA_VERSION,
        "tool": {"name": "tritonscope", "version": __version__},
        "triton_version": compilation.triton_version,
        "kernel": to_jsonable(compilation.kernel),
        "variant": to_jsonable(compilation.variant),
        "command": compilation.variant.command_line(),
        "options": compilation.options,
        "resources": resources,
        "metadata": to_jsonable(compilation.metadata),
        "compile_seconds": round(compilation.compile_seconds, 4),
        "binary": {"format": compilation.binary_ext, "bytes": len(compilation.binary)},
        "notices": list(compilation.notices),
        "stages": {stage.value: text for stage, text in compilation.stages.items()},
        "line_map": linemap.by_source(compilation),
    }


def render(compilation: Compilation) -> str:
    return json.dumps(report(compilation), indent=2) + "\n"
