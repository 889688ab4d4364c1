"""`tritonscope samples`: the bundled kernels, each as its name and kernels, then its description
folded beneath at the width: nothing is cut, at 80 columns as on a wide terminal."""

from __future__ import annotations

from rich.console import Console

from ...results.catalog import SamplesResult
from .base import TerminalRenderer, write_rows
from .code import paint, wrapped


class SamplesView(TerminalRenderer):
    def draw(self, console: Console, result: SamplesResult) -> None:
        width, color = self.terminal.width, self.terminal.color
        lines = [paint([("1", "sample kernels"), ("2", " (use one as sample:NAME)")], color)]
        for s in result.samples:
            lines.append(paint([("1", f"sample:{s.name}"), ("2", f"  {', '.join(s.kernels)}")], color))
            lines += wrapped("    " + s.description, width, color, indent=4) if s.description else []
        if result.samples:  # a path longer than a line is kept whole on its own (code.wrapped)
            lines += wrapped(f"samples live in {result.samples[0].path.parent}", width, color, "2")
        write_rows(console.file, lines)
