"""How long a kernel file's own code may run in this process (--timeout): its import and its
heuristics run under `time_limit`, which stops them with a message once the limit passes."""

from __future__ import annotations

import contextlib
import contextvars
import signal
import threading

from .errors import UsageError

USER_CODE_SECONDS: contextvars.ContextVar[float] = contextvars.ContextVar("user_code_seconds", default=300.0)


@contextlib.contextmanager
def user_code_limit(seconds: float):
    """How long a kernel file's own code (its import, heuristics) may run in this process (--timeout)."""
    token = USER_CODE_SECONDS.set(seconds)
    try:
        yield
    finally:
        USER_CODE_SECONDS.reset(token)


@contextlib.contextmanager
def time_limit(what: str):
    """Stops user code that runs past the limit, with a message; a no-op off the main thread."""
    seconds = USER_CODE_SECONDS.get()
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise UsageError(f"{what} took longer than {seconds:g} s", hint="raise --timeout, or fix the loop")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
