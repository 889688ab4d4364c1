"""`reproduce`: the standalone script that launches a captured kernel again, as it is written."""

from __future__ import annotations

from ..results.trace import ReproduceResult


class ScriptRenderer:
    def render(self, result: ReproduceResult) -> str:
        return result.script
