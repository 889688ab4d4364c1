"""`tritonscope envs list`: the Triton releases installed for --triton, one per line."""

from __future__ import annotations

from rich.console import Console

from ...results.catalog import EnvsListing
from .base import TerminalRenderer, write_rows
from .cache import human_size
from .code import wrapped


class EnvsView(TerminalRenderer):
    def draw(self, console: Console, result: EnvsListing) -> None:
        width, color = self.terminal.width, self.terminal.color
        lines = wrapped(f"running Triton {result.running}; other releases in {result.folder}:", width, color, "1")
        for release, path, size in result.envs:
            lines += wrapped(f"  {release:<10} {human_size(size):>10}  {path.name}", width, color)
        if not result.envs:
            lines += wrapped("  none yet: --triton X or --vary triton=A,B installs one on first use", width, color, "2")
        write_rows(console.file, lines)
