"""`tritonscope diff --json`: every variant's resources and instruction mix, and the diffs."""

from __future__ import annotations

import json

from .. import __version__
from ..diffing import StageDiff
from ..model import SCHEMA_VERSION, to_jsonable
from ..sweep import Outcome


def render(outcomes: list[Outcome], diffs: list[StageDiff]) -> str:
    variants = []
    for index, outcome in enumerate(outcomes):
        entry = {"index": index, "label": outcome.label, "ok": outcome.ok, "error": outcome.error}
        if outcome.ok:
            c = outcome.compilation
            entry.update(
                {
                    "command": c.variant.command_line(),
                    "variant": to_jsonable(c.variant),
                    "options": c.options,
                    "resources": to_jsonable(c.resources),
                    "compile_seconds": round(c.compile_seconds, 4),
                }
            )
        variants.append(entry)
    document = {
        "schema": SCHEMA_VERSION,
        "tool": {"name": "tritonscope", "version": __version__},
        "kind": "diff",
        "variants": variants,
        "diffs": [
            {
                "stage": d.stage.value,
                "old": d.old,
                "new": d.new,
                "changed": d.changed,
                "unified": d.unified(outcomes[d.old].describe(), outcomes[d.new].describe()),
            }
            for d in diffs
        ],
    }
    return json.dumps(document, indent=2) + "\n"
