"""Lines to stderr for the person at the terminal: messages, and a spinner while long work runs."""

from __future__ import annotations

import contextlib
import functools
import sys


@functools.cache
def stderr_console():
    """rich is imported only once something is printed through it: `dump --json` never does."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, markup=False, emoji=False)


def say(message: str, style: str | None = None) -> None:
    """One line to stderr, styled where stderr is a terminal; user text is never read as markup."""
    from rich.text import Text

    stderr_console().print(Text(message, style=style or ""), soft_wrap=True)


@contextlib.contextmanager
def progress(message: str):
    """A spinner on stderr while long work runs, only where stderr is a terminal."""
    if sys.stderr.isatty():
        with stderr_console().status(message, spinner="dots"):
            yield
    else:
        yield
