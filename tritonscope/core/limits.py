"""How long a kernel file's own code may run in this process (--timeout): its import and its
heuristics run under `time_limit`, which stops them with a message once the limit passes. And the
open-files limit of the user's shell (`ulimit -n`), said as theirs to raise when a run meets it."""

from __future__ import annotations

import contextlib
import contextvars
import errno
import functools
import re
import signal
import sys
import sysconfig
import threading
import traceback
from pathlib import Path

from . import progress
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
    """Stops user code that runs past the limit, with a message (a no-op off the main thread); the
    status line says `what` runs meanwhile, and where in the user's code it is."""
    with progress.step(what, where=functools.partial(where_now, threading.get_ident())):
        with _stopped_after(what):
            yield


def where_now(thread: int) -> str | None:
    """`file:line` of the user's code a thread of this process runs now, or None."""
    frame = sys._current_frames().get(thread)
    frames: list[tuple[str, int | None]] = []
    while frame is not None:
        frames.append((frame.f_code.co_filename, frame.f_lineno))
        frame = frame.f_back
    return stuck_at(frames)


@contextlib.contextmanager
def _stopped_after(what: str):
    seconds = USER_CODE_SECONDS.get()
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        where = stuck_at([(f.filename, f.lineno) for f in reversed(traceback.extract_stack(frame))])
        raise UsageError(
            f"{what} took longer than {seconds:g} s" + (f": stuck at {where}" if where else ""),
            hint="raise --timeout, or fix the loop",
        )

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# Code that is not the user's: tritonscope, Triton, Python's own library.
_NOT_USERS = tuple(
    str(Path(p).resolve())
    for p in (Path(__file__).parents[1], sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"])
)
_FAULTHANDLER_FRAME = re.compile(r'^\s*File "(.+)", line (\d+)', re.MULTILINE)


def stuck_at(frames: list[tuple[str, int | None]]) -> str | None:
    """`file:line` of the innermost frame of the user's code (a kernel file, a library it imports),
    given frames innermost first; None when no frame is the user's."""
    triton_dir = _triton_dir()
    for file, line in frames:
        if file.startswith("<") or not line:
            continue
        resolved = str(Path(file).resolve())
        if not resolved.startswith(_NOT_USERS) and not (triton_dir and resolved.startswith(triton_dir)):
            return f"{file}:{line}"
    return None


def stuck_in_dump(text: str) -> str | None:
    """stuck_at for a traceback as faulthandler writes it (innermost first)."""
    return stuck_at([(file, int(line)) for file, line in _FAULTHANDLER_FRAME.findall(text)])


_FAULTHANDLER_CALL = re.compile(r'^\s*File "(.+)", line (\d+) in (\S+)', re.MULTILINE)


def busy_in_dump(text: str) -> str | None:
    """Where a task's time went, from its stack as faulthandler writes it: `stuck at FILE:LINE` in the
    user's code; else the function of Triton (a compile's step: make_ttgir, make_cubin...) or of
    tritonscope it was in, innermost first; None when the stack names neither."""
    user = stuck_in_dump(text)
    if user:
        return f"stuck at {user}"
    triton_dir = _triton_dir()
    for file, line, function in _FAULTHANDLER_CALL.findall(text):
        resolved = str(Path(file).resolve())
        if triton_dir and resolved.startswith(triton_dir):
            return f"in Triton's {function} ({Path(file).name}:{line})"
    for file, line, function in _FAULTHANDLER_CALL.findall(text):
        if str(Path(file).resolve()).startswith(_NOT_USERS[0]):
            return f"in tritonscope's {function} ({Path(file).name}:{line})"
    return None


def _triton_dir() -> str | None:
    """Where Triton is installed, found without importing it (this module runs before Triton is)."""
    import importlib.util

    with contextlib.suppress(ImportError, ValueError):
        spec = importlib.util.find_spec("triton")
        if spec is not None and spec.origin:
            return str(Path(spec.origin).resolve().parent)
    return None


class OpenFilesLimit(UsageError):
    """This process, or a worker, could open no more files: the shell's `ulimit -n`, not the kernel."""


def open_files_limit(exc: BaseException) -> OpenFilesLimit | None:
    """`exc` as the open-files limit it met (EMFILE, ENFILE), naming it and what to raise; else None."""
    if not isinstance(exc, OSError) or exc.errno not in (errno.EMFILE, errno.ENFILE):
        return None
    if exc.errno == errno.ENFILE:
        return OpenFilesLimit(
            "too many open files on this machine: the system's table of open files is full",
            hint="close programs that hold many files, or raise the system's limit (sysctl fs.file-max)",
        )
    return open_files_exceeded()


def open_files_exceeded() -> OpenFilesLimit:
    """The limit of open files per process met: its value, and what to raise it to."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        hint = f"raise the limit and run again: `ulimit -n {1024 if hard == resource.RLIM_INFINITY else hard}`"
    else:  # `ulimit -n N` in bash lowers the hard limit too: only root raises it again
        hint = f"its hard limit is {hard} too: raise both as root (`ulimit -Hn 1024 -n 1024`; a container's "
        hint += "--ulimit nofile=1024), or run from a shell that has not lowered it, and run again"
    return OpenFilesLimit(
        f"too many open files: this shell lets a process open {soft} at once (ulimit -n {soft}), and the "
        "compiles need more (each worker's pipes, the compiler's files)",
        hint=hint,
    )
