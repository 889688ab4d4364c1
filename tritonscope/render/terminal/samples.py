"""`tritonscope samples`: the bundled kernels, one row each."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ...results.catalog import SamplesResult
from .base import TerminalRenderer


class SamplesView(TerminalRenderer):
    def draw(self, console: Console, result: SamplesResult) -> None:
        table = Table(title="sample kernels", title_justify="left")
        table.add_column("name", no_wrap=True)
        table.add_column("kernels", overflow="fold")
        table.add_column("description", ratio=2)
        for s in result.samples:
            table.add_row(f"sample:{s.name}", ", ".join(s.kernels), s.description)
        console.print(table)
        if result.samples:
            console.print(f"samples live in {result.samples[0].path.parent}", style="dim", soft_wrap=True)
