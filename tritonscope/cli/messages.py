"""Lines to stderr for the person at the terminal: messages, and what long work is doing (cli/status.py)."""

from __future__ import annotations

import contextlib
import functools

from ..core.progress import step
from . import status


@functools.cache
def stderr_console():
    """rich is imported only once something is printed through it: `dump --json` never does."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, markup=False, emoji=False)


def say(message: str, style: str | None = None) -> None:
    """One line to stderr, styled where stderr is a terminal; user text is never read as markup."""
    from rich.text import Text

    with status.paused():  # the status line, if shown, gives way to the message
        stderr_console().print(Text(message, style=style or ""), soft_wrap=True)


@contextlib.contextmanager
def progress(message: str):
    """Long work: the status line (cli/status.py) says `message` once it has run two seconds, on a
    terminal only, with where the work is and that Ctrl-C stops it."""
    with step(message) as entry:
        yield entry  # its `detail` may say more as the work goes (`3 of 8 done`)
