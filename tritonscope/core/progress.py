"""What this run is doing now, for the status line a person at a terminal sees (cli/status.py).

Any layer says what it starts with `step("importing kernels.py")`, and may say where it is
stuck (`where`: a function naming the user's file and line, asked now and then); a compile says
which of its stages runs (`detail`). Nothing here draws: the status line reads `now()`. The steps
are a list, not a strict stack, since work in other threads (a worker's task) ends in any order.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field


@dataclass
class Step:
    text: str | None  # None: the step only says where the work is (a worker), the outer step what
    where: Callable[[], str | None] | None = None
    started: float = field(default_factory=time.monotonic)
    detail: str | None = None  # `stage 2 of 5 (ttgir)`


_steps: list[Step] = []
_lock = threading.Lock()


@contextlib.contextmanager
def step(text: str | None, where: Callable[[], str | None] | None = None) -> Iterator[Step]:
    """`text` runs for the duration of the block."""
    entry = Step(text, where)
    with _lock:
        _steps.append(entry)
    try:
        yield entry
    finally:
        with _lock:
            if entry in _steps:
                _steps.remove(entry)


def detail(text: str | None) -> None:
    """A finer word on the innermost step that says what runs (a compile's stage)."""
    with _lock:
        for entry in reversed(_steps):
            if entry.text is not None:
                entry.detail = text
                return


@dataclass(frozen=True)
class Now:
    text: str
    seconds: float  # since the outermost step began: how long the command has been at work
    detail: str | None
    where: Callable[[], str | None] | None


def now() -> Now | None:
    """The innermost step that says what runs, and the innermost way to ask where it is; None if idle."""
    with _lock:
        steps = list(_steps)
    named = [s for s in steps if s.text is not None]
    if not named:
        return None
    innermost = named[-1]
    where = next((s.where for s in reversed(steps) if s.where is not None), None)
    return Now(innermost.text or "", time.monotonic() - steps[0].started, innermost.detail, where)
