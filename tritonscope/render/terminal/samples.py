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
        if result.samples:
            folder = str(result.samples[0].path.parent)
            said = f"samples live in {folder}"  # a path is never split: on a line of its own if need be
            lines += (
                [paint([("2", said)], color)]
                if len(said) <= width
                else [paint([("2", line)], color) for line in ("samples live in", folder)]
            )
        write_rows(console.file, lines)
