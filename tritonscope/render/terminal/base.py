"""What every terminal renderer shares: a rich console on a string or a stream, at a fixed width.

User text (kernel names, paths, IR) never goes through rich's markup: the consoles here have
markup and emoji off, and styles are given as Text styles.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO, Any, TextIO

from rich.console import Console
from rich.text import Text


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
        return unpadded(buffer.getvalue())

    def write(self, result: Any, file: TextIO) -> None:
        """Draws straight onto `file`, each part as soon as it is ready; a file that is no terminal gets no
        line's trailing spaces (Rich pads the lines it wraps and a table's rows to the width: h20a)."""
        isatty = getattr(file, "isatty", None)
        plain = not self.terminal.color and not (isatty is not None and isatty())  # a file, a CI log, a pipe
        target = Unpadded(file) if plain else file
        self.draw(console_on(target, self.terminal), result)  # type: ignore[arg-type]
        target.flush()


class Unpadded:
    """A file written through with each whole line's trailing spaces taken off (text with no colours)."""

    def __init__(self, file: TextIO):
        self.file, self.pending = file, ""

    def write(self, text: str) -> int:
        head, newline, self.pending = (self.pending + text).rpartition("\n")
        if newline:
            self.file.write(unpadded(head) + "\n")
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.file.write(unpadded(self.pending))
            self.pending = ""
        self.file.flush()

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:  # encoding, fileno: the file's own
        return getattr(self.file, name)


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


def print_folded(
    console: Console,
    text: str,
    style: str = "",
    first: str = "",
    indent: int = 4,
    marked: tuple[str, str] = ("", ""),
    keep: tuple[str, ...] = (),
) -> None:
    """Prose folded at spaces to the console's width, its later lines indented by `indent`, `first`
    before its first: no line padded to the width (a file piped to keeps no trailing spaces).
    `marked`: a phrase and its style (a verdict in its colour); `keep`: phrases not folded at their
    own spaces (code.folded)."""
    from .code import folded

    for line in folded(text, max(console.width, 20), first, indent, keep):
        shown = Text(line, style=style)
        if marked[0]:
            shown.highlight_words([marked[0]], marked[1])
        console.print(shown, no_wrap=True, overflow="ignore", crop=False)


_PADDED = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$")


def unpadded(text: str) -> str:
    """TEXT with each line's trailing spaces taken off, before the colour codes that close it where it
    has any (every view's one way: `render`, `write` to a file, `print_unpadded`)."""
    if "\x1b" not in text:  # no colours: a plain strip, several times faster than the pattern
        return "\n".join(line.rstrip(" ") for line in text.split("\n"))
    return "\n".join(_PADDED.sub(r"\1", line) for line in text.split("\n"))


def print_unpadded(console: Console, renderable) -> None:
    """A table (Rich pads every line to its width) printed with each line's trailing spaces taken
    off: a file or a CI log keeps no padding."""
    with console.capture() as captured:
        console.print(renderable)
    console.file.write(unpadded(captured.get()))
