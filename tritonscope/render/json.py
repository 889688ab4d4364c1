"""Every `--json` document: one envelope {schema, tool, kind, ...} around each command's body.

The bodies are described in docs/json-schema.md, and drawn by one renderer per result family
(render/json_*.py: dump, explain, variants, passes, bench, layouts, listings, captures), each a
JsonRenderer, with the part that draws each result type named in render/registry.py. Non-finite
floats become strings and values are typed (numbers, booleans, null, strings), so strict JSON
parsers read every document.
"""

from __future__ import annotations

import json
from typing import Any

from .. import __version__
from ..core.model import SCHEMA_VERSION, Compilation, to_jsonable
from ..results.dump import DumpResult
from .registry import part, renderer_class


def envelope(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"schema": SCHEMA_VERSION, "tool": {"name": "tritonscope", "version": __version__}, "kind": kind, **body}


class JsonRenderer:
    """The envelope and the dispatch every family's renderer shares."""

    def __init__(self, full: bool = False):
        self.full = full  # passes --show --full: the IR after each shown pass

    def render(self, result: Any) -> str:
        return json.dumps(to_jsonable(envelope(result.kind, self.body(result))), indent=2, allow_nan=False) + "\n"

    def body(self, result: Any) -> dict[str, Any]:
        """A result's document without the envelope, drawn by the part render/registry.py names, of
        the renderer of its family (this one, or another: release timings hold bench results)."""
        family = renderer_class(type(result), "json")
        drawer = self if isinstance(self, family) else family(self.full)
        return getattr(drawer, part(type(result), "json"))(result)


def report(c: Compilation) -> str:
    """The dump document of one compilation: what `dump --json` prints and `dump -o` saves."""
    return JsonRenderer().render(DumpResult(c, tuple(c.stages)))
