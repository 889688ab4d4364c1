"""Lines to stderr for the person at the terminal: messages, and what long work is doing (cli/status.py)."""

from __future__ import annotations

import contextlib
import functools
import re
import textwrap

from ..core.progress import step
from . import status

_HEAD = re.compile(r"^(?:internal error|error|hint|warning|note|notice): ")  # what a message's first word says


@functools.cache
def stderr_console():
    """rich is imported only once something is printed through it: `dump --json` never does."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, markup=False, emoji=False)


def say(message: str, style: str | None = None) -> None:
    """One line to stderr, styled where stderr is a terminal; user text is never read as markup."""
    from rich.text import Text

    console = stderr_console()
    shown = wrapped(message, console.width) if console.is_terminal else message  # a pipe's: one line, for grep
    with status.paused():  # the status line, if shown, gives way to the message
        console.print(Text(shown, style=style or ""), soft_wrap=True)


def wrapped(message: str, width: int) -> str:
    """A message broken between words at `width` columns, its next lines under its first word after the
    `error: ` (or `hint: `...): a terminal would break it mid-word at its edge."""
    head = _HEAD.match(message)
    indent = " " * len(head.group(0)) if head and len(head.group(0)) < width // 2 else ""
    return "\n".join(
        textwrap.fill(line, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False) or line
        for line in message.splitlines()
    )


@contextlib.contextmanager
def progress(message: str):
    """Long work: the status line (cli/status.py) says `message` once it has run two seconds, on a
    terminal only, with where the work is and that Ctrl-C stops it."""
    with step(message) as entry:
        yield entry  # its `detail` may say more as the work goes (`3 of 8 done`)
