"""`bench ... --vary triton=A,B` in the terminal: each release's run as `bench` shows it, then each
launch's time under every release over the first's, then the first pass whose output differs."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ...results.bench import ReleaseTimings
from .base import TerminalRenderer


def ratio_lines(result: ReleaseTimings) -> list[str]:
    lines = [f"time over Triton {result.releases[0]}'s ({', '.join(result.releases)}):"]
    for key, ratios in result.ratios():
        shown = ", ".join("-" if r is None else f"{r:.2f}x" for r in ratios)
        lines.append(f"  {key}: {shown}")
    return lines


class ReleaseTimingsView(TerminalRenderer):
    def draw(self, console: Console, result: ReleaseTimings) -> None:
        from ..registry import renderer

        for release, run, error in zip(result.releases, result.runs, result.errors, strict=True):
            console.print(Text(f"── Triton {release} ──", style="bold"))
            if run is None:
                console.print(Text(f"failed: {error}", style="red"))
                continue
            console.file.write(renderer(type(run), "terminal", self.terminal.width, self.terminal.color).render(run))
        for line in ratio_lines(result):
            console.print(Text(line))
        console.print(Text(f"── passes: Triton {' vs '.join(result.releases[:2])} ──", style="bold"))
        if result.passes is None:
            console.print(Text(f"not compared: {result.passes_error}", style="yellow"))
        else:
            view = renderer(type(result.passes), "terminal", self.terminal.width, self.terminal.color)
            console.file.write(view.render(result.passes))
