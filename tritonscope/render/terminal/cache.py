"""`tritonscope cache list`: the compiled kernels of a cache or capture, newest first."""

from __future__ import annotations

import datetime

from rich.console import Console
from rich.table import Table

from ...core.results import CacheListing
from .base import TerminalRenderer


def human_size(n: float) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


class CacheView(TerminalRenderer):
    def draw(self, console: Console, result: CacheListing) -> None:
        table = Table(title=f"{len(result.entries)} compiled kernels in {result.folder}", title_justify="left")
        table.add_column("kernel", overflow="fold")
        for column in ("target", "options", "stages", "size", "modified"):
            table.add_column(column)
        for e in result.entries:
            options = f"warps={e.metadata.get('num_warps')} stages={e.metadata.get('num_stages')}"
            when = datetime.datetime.fromtimestamp(e.modified).strftime("%Y-%m-%d %H:%M")
            table.add_row(e.name, e.target, options, " ".join(e.stages), human_size(e.size), when)
        console.print(table)
        if result.entries:
            console.print(
                f"show one with: tritonscope dump {result.folder}/:{result.entries[0].name}",
                style="dim",
                soft_wrap=True,
            )
