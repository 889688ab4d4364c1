"""What every terminal renderer shares: a rich console on a string or a stream, at a fixed width.

User text (kernel names, paths, IR) never goes through rich's markup: the consoles here have
markup and emoji off, and styles are given as Text styles.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO, Any, TextIO

from rich.console import Console


@dataclass(frozen=True)
class Terminal:
    width: int = 80
    color: bool = False


class _Console(Console):
    def on_broken_pipe(self) -> None:
        raise BrokenPipeError  # the reader left (`| head`): the command layer ends quietly, exit 0


def console_on(file: TextIO, terminal: Terminal) -> Console:
    return _Console(
        file=file,
        width=terminal.width,
        force_terminal=terminal.color,
        no_color=not terminal.color,
        color_system="auto" if terminal.color else None,
        markup=False,
        emoji=False,
        highlight=False,
        soft_wrap=False,
        force_jupyter=False,  # text for the file, even where rich finds Jupyter (the Python API's views)
    )


class TerminalRenderer:
    """A renderer that draws on a console; subclasses implement `draw(console, result)`."""

    def __init__(self, terminal: Terminal | None = None):
        self.terminal = terminal or Terminal()

    def draw(self, console: Console, result: Any) -> None:
        raise NotImplementedError

    def render(self, result: Any) -> str:
        buffer = io.StringIO()
        self.draw(console_on(buffer, self.terminal), result)
        return buffer.getvalue()

    def write(self, result: Any, file: TextIO) -> None:
        """Draws straight onto `file`, each part as soon as it is ready."""
        self.draw(console_on(file, self.terminal), result)


def write_rows(file: IO[str], rows: Iterable[str], batch: int = 256) -> None:
    """Finished rows onto `file` in batches: few writes, and the first screen out as soon as it is drawn."""
    chunk = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= batch:
            file.write("\n".join(chunk) + "\n")
            chunk.clear()
    if chunk:
        file.write("\n".join(chunk) + "\n")
