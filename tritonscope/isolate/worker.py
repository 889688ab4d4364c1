"""The worker's side of local.Workers: a process forked by its pool's fork server (zygote.py), or a
fresh interpreter of another release (`python -m tritonscope.isolate`), that reads tasks from stdin
and writes each outcome to its result pipe, until end of input.

It dies with its parent whatever the signal (PR_SET_PDEATHSIG, and end of input), ignores the
terminal's Ctrl-C (the parent handles it), writes its stack where the parent reads it when asked
(STACK_SIGNAL: where a task is stuck) and never writes to the parent's stdout. Messages both ways are
a length and a pickle (`write_message`, `read_message`)."""

from __future__ import annotations

import contextlib
import importlib
import os
import pickle
import signal
import struct
import sys
from typing import IO, Any

from ..core.status import ExitStatus
from .tasks import Outcome, perform

RESULT_FD = "TRITONSCOPE_RESULT_FD"  # the descriptor of the pipe the worker writes outcomes to
PRELOAD = "TRITONSCOPE_PRELOAD"  # a module the worker imports before its first task ("module:function": and calls)
STACK_FD = "TRITONSCOPE_STACK_FD"  # the file the worker writes its stack to on STACK_SIGNAL
# A real-time signal, not SIGUSR1: LLVM, loaded with Triton, takes SIGUSR1 for its own "info" handler,
# and a worker asked with it while Triton compiles would say nothing.
STACK_SIGNAL = signal.SIGRTMIN + 4
PARENT = "TRITONSCOPE_WORKER_PARENT"  # the id of the process that started the worker
_LENGTH = struct.Struct("<Q")
_STACK_FILE: IO[str] | None = None  # kept open for faulthandler, which writes to it from a signal handler


def write_message(stream: IO[bytes], payload: bytes) -> None:
    stream.write(_LENGTH.pack(len(payload)) + payload)
    stream.flush()


def read_message(stream: IO[bytes]) -> Any:
    """The next message's value; EOFError where the stream ends before a whole one."""
    header = stream.read(_LENGTH.size)
    if len(header) < _LENGTH.size:
        raise EOFError
    (length,) = _LENGTH.unpack(header)
    body = stream.read(length)
    if len(body) < length:
        raise EOFError
    return pickle.loads(body)


def _die_with_parent() -> None:
    """Linux: the kernel kills this process when its parent dies, whatever killed the parent. A parent
    that died before that was asked (SIGTERM while this interpreter started) is seen by its id: an
    orphan's parent is then init or a subreaper (a container's init, a supervisor), not pid 1 alone."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    parent = os.environ.pop(PARENT, "")
    if os.getppid() == 1 or (parent.isdigit() and os.getppid() != int(parent)):
        os._exit(1)


def _stack_on_request() -> None:
    """STACK_SIGNAL writes this worker's stack to the file its parent reads (local._Worker.stack)."""
    import faulthandler

    global _STACK_FILE
    with contextlib.suppress(KeyError, ValueError, OSError, RuntimeError):
        _STACK_FILE = os.fdopen(int(os.environ.pop(STACK_FD)), "w")
        faulthandler.register(STACK_SIGNAL, file=_STACK_FILE, all_threads=True)


def _outcome_payload(outcome: Outcome) -> bytes:
    try:
        return pickle.dumps(outcome)
    except Exception as exc:  # noqa: BLE001 - a value that cannot travel is a bug, reported
        return pickle.dumps(Outcome(error=f"unpicklable result: {exc}", exit_code=ExitStatus.BUG))


def serve() -> None:
    """In the worker: read tasks from stdin, write each outcome to the result pipe, until EOF."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    results = os.fdopen(int(os.environ.pop(RESULT_FD)), "wb")
    _stack_on_request()
    # The user's prints never reach the parent's stdout; a file of their own, so that a kernel file
    # closing sys.stdout leaves sys.stderr (and the messages written to it) alone.
    sys.stdout = os.fdopen(os.dup(2), "w", errors="replace", buffering=1)
    tasks = _tasks_alone()
    preload = os.environ.pop(PRELOAD, None)
    if preload:  # imported while the parent still prepares the tasks; a failure shows in the task itself
        _preload(preload)
    while True:
        try:
            task = read_message(tasks)
        except EOFError:
            return
        write_message(results, _outcome_payload(perform(task)))


def _preload(preload: str) -> None:
    """Imports the module named, and calls its function where one is named ("module:function"): a
    warm-up whose failure is no task's (the tasks meet it themselves, if it is theirs)."""
    module, _, function = preload.partition(":")
    with contextlib.suppress(Exception):
        loaded = importlib.import_module(module)
        if function:
            getattr(loaded, function)()


def _tasks_alone() -> IO[bytes]:
    """The task pipe on a descriptor of its own, and /dev/null as stdin: a kernel file's `input()`, or a
    program a task starts (trace's, ncu), reads nothing of the tasks that follow, and never waits on them."""
    tasks = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the process's stdin for its whole life
    return tasks
