"""The one child-process runner: user code and the compiler run in workers that may crash or hang.

Every command that runs a user's kernel code away from the main process (diff's variants,
passes' dump capture, grid's interpreter) goes through `Workers`:

- a worker is a fresh Python interpreter (`python -m tritonscope.isolate`) with the
  environment it was asked for, and it serves many tasks, so Triton's start-up costs and
  the kernel file's import are paid once per worker, not once per task;
- a task that raises comes back as its message and exit code; a worker that crashes or
  runs past the timeout is killed and replaced, and only its task fails;
- workers die with their parent whatever the signal (PR_SET_PDEATHSIG, and end of input),
  ignore the terminal's Ctrl-C (the parent handles it), and never write to stdout.

The executor interface (what commands fan out through; `pool` picks the implementation):

    with pool(jobs, timeout) as workers:          # Workers here, or cluster.RayWorkers (--cluster)
        workers.warm(preload="pkg.module")        # optional: start-up overlapped (a no-op on Ray)
        outcomes = workers.run(tasks, on_done)    # list[Outcome] in task order; on_done(index, outcome)
        value = workers.call(task)                # one task's value, or its error raised here

A Task is plain picklable data: "module:function", its arguments, the interpreter to run it in
(`python`: another Triton release's environment; None: this one) and, for Ray, the files its
arguments name (`files`, sent with it: nodes share no disk). On a cluster (`on_cluster()`) a
task of another release names no interpreter: app/releases.py's `task` wraps it so that the
node finds or makes its own environment of that release.
Both implementations keep the same guarantees: a task that crashes or passes `timeout` is one
failed Outcome; Ctrl-C ends every task still running; outcomes are the same values.

Foreign programs (ncu, pip, the program `trace` runs) go through `Program`: they too die
with their parent, run under a time limit where one is given, and are stopped (SIGTERM,
then SIGKILL; with their own process group, the programs they started too) when the limit
passes or the parent is interrupted.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import pickle
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .core.errors import CompileError, KernelFileError, TritonscopeError, UsageError
from .core.limits import stuck_in_dump
from .core.status import ExitStatus

_LENGTH = struct.Struct("<Q")
_RESULT_FD = "TRITONSCOPE_RESULT_FD"
_PRELOAD = "TRITONSCOPE_PRELOAD"
_STACK_FD = "TRITONSCOPE_STACK_FD"
_STACK_FILE = None  # kept open for faulthandler, which writes to it from a signal handler


@dataclass(frozen=True)
class Task:
    function: str  # "package.module:function", imported in the worker
    args: tuple = ()
    python: str | None = None  # the interpreter to run it (another Triton release's); None: this one
    files: tuple[str, ...] = ()  # local files its arguments name, sent with it to a cluster's nodes


@dataclass
class Outcome:
    value: Any = None
    error: str | None = None  # the message when the task failed
    exit_code: int = 0  # the failure's exit code: 1 compile, 2 usage or input, 3 a tritonscope bug
    error_type: str = ""  # the TritonscopeError subclass, to raise the same again
    timed_out: bool = False  # the task ran past the workers' timeout and its worker was killed

    @property
    def ok(self) -> bool:
        return self.error is None

    def unwrap(self) -> Any:
        """The value, or the task's error raised again in this process."""
        if self.ok:
            return self.value
        kind = {"CompileError": CompileError, "KernelFileError": KernelFileError}.get(self.error_type, UsageError)
        if self.exit_code == 3:
            raise RuntimeError(self.error)
        raise kind(self.error)


class Relayed(Exception):  # noqa: N818 - not an error of its own: another task's, passed on
    """Raised by a task that ran a task of its own (a node's worker of another release): that task's
    failed Outcome becomes this task's, unchanged (message, exit code, kind, time-out)."""

    def __init__(self, outcome: Outcome):
        super().__init__(outcome.error)
        self.outcome = outcome


_cluster: str | None = None  # the Ray address --cluster (or TRITONSCOPE_CLUSTER) named


def use_cluster(address: str | None) -> None:
    """From now on `pool` runs tasks on this Ray cluster (None: in local workers)."""
    global _cluster
    _cluster = address or None


def on_cluster() -> bool:
    """Whether `pool`'s tasks run on a cluster's nodes: work that follows a task is then better done
    in the task (on the node) than after it (on the head, for every task), and a task's interpreter
    is the node's to find, not a path on this machine."""
    return _cluster is not None


def pool(jobs: int = 1, timeout: float = 600, env: dict[str, str] | None = None) -> Workers:
    """The executor for a fan-out of tasks: local workers, or a Ray cluster's after `use_cluster`.
    Callers see one interface (above) and the same outcomes whichever runs."""
    if _cluster is None:
        return Workers(jobs=jobs, timeout=timeout, env=env)
    from .cluster import RayWorkers

    return RayWorkers(_cluster, timeout=timeout, env=env)  # type: ignore[return-value]


class Workers:
    """Up to `jobs` worker processes; `run` hands out tasks and returns their outcomes in order."""

    def __init__(self, jobs: int = 1, timeout: float = 600, env: dict[str, str] | None = None, stderr=None):
        self.jobs, self.timeout = max(jobs, 1), timeout
        self.env = {**os.environ, **(env or {})}
        self.stderr = stderr  # a file for the workers' C-level stderr (passes reads the dumps there)
        self._idle: list[_Worker] = []

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        for worker in self._idle:
            worker.kill()
        self._idle.clear()

    def warm(self, python: str | None = None, count: int = 1, preload: str | None = None) -> Workers:
        """Starts `count` workers now (those not yet started), so their start-up overlaps the caller's
        work; each imports the module `preload` (the one its tasks will call) before its first task."""
        env = {**self.env, _PRELOAD: preload} if preload else self.env
        while sum(worker.python == python for worker in self._idle) < min(count, self.jobs):
            self._idle.append(_Worker(env, self.stderr, python))
        return self

    def call(self, task: Task) -> Any:
        """One task's value, or its error raised here."""
        return self.run([task])[0].unwrap()

    def run(self, tasks: list[Task], on_done: Callable[[int, Outcome], None] | None = None) -> list[Outcome]:
        outcomes: list[Outcome | None] = [None] * len(tasks)
        pending = list(enumerate(tasks))
        busy: dict[int, tuple[_Worker, int, float]] = {}  # result fd -> (worker, task index, start)
        try:
            while pending or busy:
                while pending and len(busy) < self.jobs:
                    index, task = pending.pop(0)
                    worker = self._worker_for(task.python)
                    worker.send(index, task)
                    busy[worker.results] = (worker, index, time.monotonic())
                for index, outcome in self._collect(busy):
                    outcomes[index] = outcome
                    if on_done:
                        on_done(index, outcome)
        except BaseException:
            for worker, _, _ in busy.values():
                worker.kill()
            raise
        return outcomes  # type: ignore[return-value]

    def _worker_for(self, python: str | None) -> _Worker:
        """An idle worker running that interpreter, else a new one (an idle worker of another is let go)."""
        for worker in list(self._idle):
            if worker.process.poll() is not None:  # died while idle (its parent thread gone, say)
                self._idle.remove(worker)
                worker.kill()
            elif worker.python == python:
                self._idle.remove(worker)
                return worker
        if len(self._idle) >= self.jobs:
            self._idle.pop(0).kill()
        return _Worker(self.env, self.stderr, python)

    def _collect(self, busy: dict) -> Iterator[tuple[int, Outcome]]:
        ready, _, _ = select.select(list(busy), [], [], 0.2)
        for fd in ready:
            worker, index, _ = busy.pop(fd)
            outcome = worker.receive()
            if outcome is None:  # the worker died: its task failed, the worker is gone
                outcome = Outcome(error=worker.death(), exit_code=ExitStatus.FAILED, error_type="CompileError")
            else:
                self._idle.append(worker)
            yield index, outcome
        now = time.monotonic()
        for fd, (worker, index, started) in list(busy.items()):
            if now - started > self.timeout:
                busy.pop(fd)
                where = worker.where_stuck()
                worker.kill()
                stuck = f" (stuck at {where})" if where else ""
                message = f"timed out after {self.timeout:g} s{stuck}"
                yield index, Outcome(error=message, exit_code=ExitStatus.USAGE, timed_out=True)


class _Worker:
    def __init__(self, env: dict[str, str], stderr, python: str | None = None):
        read_end, write_end = os.pipe()
        self.python = python
        # Where the worker writes its stack when asked (SIGUSR1), to say where a task was stuck.
        self._stack = tempfile.TemporaryFile()  # noqa: SIM115 - closed in kill()
        env = {**env, _RESULT_FD: str(write_end), _STACK_FD: str(self._stack.fileno()), "PYTHONFAULTHANDLER": ""}
        if python is not None:  # another Triton release's environment
            env.update(_foreign_environment(env))
        self.process = subprocess.Popen(
            [python or sys.executable, "-m", "tritonscope.isolate"],
            stdin=subprocess.PIPE,
            stdout=stderr if stderr is not None else 2,  # the parent's fd 2: never its stdout
            stderr=stderr,
            env=env,
            pass_fds=(write_end, self._stack.fileno()),
        )
        os.close(write_end)
        self.results = read_end
        self._stream = os.fdopen(read_end, "rb")

    def send(self, index: int, task: Task) -> None:
        payload = pickle.dumps((index, task))
        self.process.stdin.write(_LENGTH.pack(len(payload)) + payload)
        self.process.stdin.flush()

    def receive(self) -> Outcome | None:
        try:
            return _read_message(self._stream)[1]
        except (EOFError, OSError, pickle.UnpicklingError):
            self.kill()
            return None

    def death(self) -> str:
        code = self.process.wait()
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"the compiler process crashed ({signal.Signals(-code).name})"
            return f"the compiler process was killed by signal {-code}"
        return f"the compiler process exited with code {code} without a result"

    def where_stuck(self) -> str | None:
        """The user's file and line the worker's task is running now (its stack, written by
        faulthandler on SIGUSR1, even from inside C code), or None if it does not say in time."""
        if self.process.poll() is not None:
            return None
        with contextlib.suppress(OSError):
            self.process.send_signal(signal.SIGUSR1)
            deadline = time.monotonic() + 1
            while time.monotonic() < deadline:
                time.sleep(0.05)
                self._stack.seek(0)
                text = self._stack.read().decode(errors="replace")
                if "File " in text and text.endswith("\n"):
                    return stuck_in_dump(text)
        return None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        with contextlib.suppress(OSError):
            self._stack.close()
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        with contextlib.suppress(OSError):
            self._stream.close()


# Runs first in a foreign program's process: asks the kernel to kill it when its parent dies, then
# becomes the program (exec keeps the process, so the death signal holds).
_LAUNCHER = """import ctypes, os, signal, sys
try:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
except (AttributeError, OSError):
    pass
if os.getppid() != int(sys.argv[1]):
    os._exit(1)
try:
    os.execvp(sys.argv[2], sys.argv[2:])
except OSError as exc:
    sys.stderr.write(f"cannot run {sys.argv[2]}: {exc.strerror}\\n")
    os._exit(127)
"""
STOP_GRACE = 3.0  # seconds a stopped program has between SIGTERM and SIGKILL


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str | bytes | None = None  # what it printed, where piped
    stderr: str | bytes | None = None
    timed_out: bool = False  # it ran past its time limit and was stopped


class Program:
    """A foreign program as a child: `with Program(argv, ...) as p: finished = p.finish(timeout)`.
    With `own_group` it and what it starts are stopped together; without, it stays in the
    terminal's group (a user's program that reads the terminal, sees its Ctrl-C)."""

    def __init__(self, argv: list[str], own_group: bool = True, **popen: Any):
        env = popen.get("env") or os.environ
        if shutil.which(argv[0], path=env.get("PATH")) is None:  # said here, as Popen would say it
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv[0])
        self.own_group = own_group
        launcher = [sys.executable, "-S", "-c", _LAUNCHER, str(os.getpid()), *argv]
        self.process = subprocess.Popen(launcher, start_new_session=own_group, **popen)

    def __enter__(self) -> Program:
        return self

    def __exit__(self, kind, *_) -> None:
        if kind is not None:  # the caller failed or was interrupted (Ctrl-C, SIGTERM): no orphan
            self.stop()
        self.process.wait()

    def finish(self, timeout: float | None = None) -> Finished:
        """Waits for the program (at most `timeout` seconds), reading what it prints where piped."""
        try:
            out, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            return Finished(self.process.returncode, timed_out=True)
        return Finished(self.process.returncode, out, err)

    def stop(self) -> None:
        """SIGTERM (to its group, with one), then SIGKILL if it is still there after STOP_GRACE."""
        for sig, wait in ((signal.SIGTERM, STOP_GRACE), (signal.SIGKILL, None)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if self.own_group:
                    os.killpg(self.process.pid, sig)
                else:
                    self.process.send_signal(sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.communicate(timeout=wait)
                if not self.own_group:  # a group may outlive its first process: it gets SIGKILL too
                    return


def _foreign_environment(env: dict[str, str]) -> dict[str, str]:
    """What an interpreter of another environment needs to run this tritonscope: a folder holding only
    a link to this package goes first on its path, so it imports this tritonscope and its own Triton
    (the package's parent folder would also bring this environment's Triton)."""
    import hashlib

    from .core.fileio import user_cache_dir

    package = Path(__file__).resolve().parent
    folder = user_cache_dir() / "source" / hashlib.sha256(str(package).encode()).hexdigest()[:16]
    link = folder / "tritonscope"
    if not link.is_symlink() or link.resolve() != package:
        folder.mkdir(parents=True, exist_ok=True)
        staged = folder / f".link.{os.getpid()}"
        staged.unlink(missing_ok=True)
        staged.symlink_to(package, target_is_directory=True)
        os.replace(staged, link)  # atomic: a worker starting now sees the old link or the new one
    path = env.get("PYTHONPATH")
    return {"PYTHONPATH": f"{folder}{os.pathsep}{path}" if path else str(folder), "PYTHONNOUSERSITE": "1"}


def _read_message(stream) -> Any:
    header = stream.read(_LENGTH.size)
    if len(header) < _LENGTH.size:
        raise EOFError
    (length,) = _LENGTH.unpack(header)
    body = stream.read(length)
    if len(body) < length:
        raise EOFError
    return pickle.loads(body)


def _die_with_parent() -> None:
    """Linux: the kernel kills this process when its parent dies, whatever killed the parent."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() == 1:
        os._exit(1)


def _stack_on_request() -> None:
    """SIGUSR1 writes this worker's stack to the file its parent reads (Workers.where_stuck)."""
    import faulthandler

    global _STACK_FILE
    with contextlib.suppress(KeyError, ValueError, OSError, RuntimeError):
        _STACK_FILE = os.fdopen(int(os.environ.pop(_STACK_FD)), "w")
        faulthandler.register(signal.SIGUSR1, file=_STACK_FILE, all_threads=False)


def _perform(task: Task) -> Outcome:
    module, _, name = task.function.partition(":")
    try:
        return Outcome(value=getattr(importlib.import_module(module), name)(*task.args))
    except Relayed as relayed:
        return relayed.outcome
    except TritonscopeError as exc:
        message = exc.message + (f" ({exc.hint})" if exc.hint else "")
        return Outcome(error=message, exit_code=exc.exit_code, error_type=type(exc).__name__)
    except BaseException as exc:  # noqa: BLE001 - anything else is reported, the parent carries on
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return Outcome(error=detail, exit_code=ExitStatus.BUG)


def _serve() -> None:
    """In the worker: read tasks from stdin, write each outcome to the result pipe, until EOF."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    results = os.fdopen(int(os.environ.pop(_RESULT_FD)), "wb")
    _stack_on_request()
    # The user's prints never reach the parent's stdout; a file of their own, so that a kernel file
    # closing sys.stdout leaves sys.stderr (and the messages written to it) alone.
    sys.stdout = os.fdopen(os.dup(2), "w", errors="replace", buffering=1)
    preload = os.environ.pop(_PRELOAD, None)
    if preload:  # imported while the parent still prepares the tasks; a failure shows in the task itself
        with contextlib.suppress(Exception):
            importlib.import_module(preload)
    while True:
        try:
            index, task = _read_message(sys.stdin.buffer)
        except EOFError:
            return
        outcome = _perform(task)
        try:
            payload = pickle.dumps((index, outcome))
        except Exception as exc:  # noqa: BLE001 - a value that cannot travel is a bug, reported
            payload = pickle.dumps((index, Outcome(error=f"unpicklable result: {exc}", exit_code=ExitStatus.BUG)))
        results.write(_LENGTH.pack(len(payload)) + payload)
        results.flush()


if __name__ == "__main__":
    from tritonscope.isolate import _serve as serve  # classes pickled under their module's real name

    serve()
