"""Renderers: a command's result (results/) in, text or bytes out. They never compile.

Every renderer has `render(result) -> str | bytes`. Terminal renderers also `write(result,
file)`, so that a pager shows the first screen while the rest is still being drawn. A new
output format is one renderer module and its rows in registry.py, where every front end
finds it (`registry.render(result, fmt)`; the command wrapper, cli/runner.py, for the command line).
"""

from __future__ import annotations

from typing import Any, Protocol


class Renderer(Protocol):
    def render(self, result: Any) -> str | bytes: ...
