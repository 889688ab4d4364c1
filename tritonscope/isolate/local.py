"""The executor on this machine: a pool of worker processes (worker.py), each serving many tasks, so
Triton's start-up and the kernel file's import are paid once per worker, not once per task.

- this environment's workers are forked from the pool's fork server (zygote.py), which imported
  Triton and the tasks' module once: a second worker, or one replacing a killed worker, costs a fork,
  not Python's and Triton's start-up again; another Triton release's worker is a fresh interpreter
  (`python -m tritonscope.isolate`) of that environment, with this tritonscope put on its path;
- a task that raises comes back as its message and exit code; a worker that crashes or runs past
  the timeout is killed and replaced, and only its task fails; a time-out says where the task was
  ("stuck at FILE:LINE", from the worker's stack);
- a cancelled task's worker is killed and reaped at once, with the processes it started (its own
  process group: ptxas, nvdisasm): nothing of it is left, and the next task gets a fresh worker;
- workers die with their parent whatever the signal, ignore the terminal's Ctrl-C (an exception in
  `run`, Ctrl-C or SIGTERM's, kills every worker still busy) and never write to stdout.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ..core import progress, scratch
from ..core.limits import OpenFilesLimit, busy_in_dump, stuck_in_dump
from ..core.status import ExitStatus
from .tasks import Outcome, Task, cancelled
from .worker import PARENT, PRELOAD, RESULT_FD, STACK_FD, STACK_SIGNAL, read_message, write_message
from .zygote import FORKS, Forked, Zygote, readable

_POLL = 0.2  # seconds between looks at the time limits of the tasks in flight


class Workers:
    """Up to `jobs` worker processes: `run` hands out tasks and returns their outcomes in order;
    `submit` starts one task at once on a worker of its own and returns its handle."""

    def __init__(self, jobs: int = 1, timeout: float = 600, env: dict[str, str] | None = None, stderr=None):
        self.jobs, self.timeout = max(jobs, 1), timeout
        # TRITON_INTERPRET=1 (a learner's notebook or shell, to run kernels on the CPU) would make the
        # workers' @triton.jit an interpreted function, which compiles nothing: only a pool that asks
        # for it (tritonscope grid) has it
        inherited = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
        self.env = {**inherited, **scratch.environ(), **(env or {})}
        self.stderr = stderr  # a file for the workers' C-level stderr (passes reads the dumps there)
        self._idle: list[_Worker] = []
        self._submitted: set[LocalHandle] = set()  # submit's tasks not ended yet: `close` ends them
        self._zygote: Zygote | None = None  # where this environment's workers are forked from
        self._lock = threading.Lock()  # both: a submitted task ends in whichever thread waits on it

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        """Kills every worker: the idle ones, and those of submitted tasks still running (cancelled)."""
        with self._lock:
            idle, self._idle = self._idle, []
            running = list(self._submitted)
        for handle in running:
            handle.cancel()
        for worker in idle:
            worker.kill()
        with self._lock:
            zygote, self._zygote = self._zygote, None
        if zygote is not None:
            zygote.close()

    def warm(self, python: str | None = None, count: int = 1, preload: str | None = None) -> Workers:
        """Starts `count` workers now (those not yet started), so their start-up overlaps the caller's
        work; each imports the module `preload` (the one its tasks will call) before its first task,
        and calls its function where it names one ("module:function": a warm-up)."""
        env = {**self.env, PRELOAD: preload} if preload else self.env
        with self._lock:
            while sum(worker.python == python for worker in self._idle) < min(count, self.jobs):
                self._idle.append(self._new_worker(env, python))
        return self

    def call(self, task: Task) -> Any:
        """One task's value, or its error raised here."""
        return self.run([task])[0].unwrap()

    def submit(self, task: Task, timeout: float | None = None) -> LocalHandle:
        """Starts `task` now on a worker of its own (an idle one, else a new one) and returns its handle:
        `result()` waits for its Outcome, `cancel()` (from any thread) kills its worker. `timeout`: this
        task's own time limit, where not the workers' (a session's calls each have theirs)."""
        handle = LocalHandle(self, task, timeout)
        with self._lock:
            self._submitted.add(handle)
        return handle

    def run(self, tasks: list[Task], on_done: Callable[[int, Outcome], None] | None = None) -> list[Outcome]:
        """Every task's Outcome, in task order, `jobs` at a time; `on_done(index, outcome)` as each ends."""
        outcomes: list[Outcome | None] = [None] * len(tasks)
        pending = list(enumerate(tasks))
        running: dict[LocalHandle, int] = {}  # handle -> task index
        try:
            with progress.step(None, where=lambda: _where_any(list(running))):  # for the status line
                self._run(pending, running, outcomes, on_done)
        except BaseException:
            for handle in running:
                handle.cancel()
            raise
        return outcomes  # type: ignore[return-value]

    def _run(self, pending, running, outcomes, on_done) -> None:
        while pending or running:
            while pending and len(running) < self.jobs:
                index, task = pending.pop(0)
                running[LocalHandle(self, task)] = index
            for handle in _settled(list(running)):
                index = running.pop(handle)
                outcomes[index] = handle.result()
                if outcomes[index].error_type == OpenFilesLimit.__name__:  # said once (exit 2), not per task
                    message, _, hint = (outcomes[index].error or "").partition("\n")
                    raise OpenFilesLimit(message, hint=hint or None)
                if on_done:
                    on_done(index, outcomes[index])

    def _take(self, python: str | None) -> _Worker:
        """An idle worker running that interpreter, else a new one (an idle worker of another is let go).
        Of several, the one that has run the most tasks: its first compile, with the imports and
        Triton's set-up that come with it (0.2 s), is behind it."""
        with self._lock:
            for worker in list(self._idle):
                if worker.process.poll() is not None:  # died while idle (its parent thread gone, say)
                    self._idle.remove(worker)
                    worker.kill()
            ready = [worker for worker in self._idle if worker.python == python]
            if ready:
                worker = max(ready, key=lambda w: w.tasks)
                self._idle.remove(worker)
                return worker
            if len(self._idle) >= self.jobs:
                self._idle.pop(0).kill()
            return self._new_worker(self.env, python)

    def _new_worker(self, env: dict[str, str], python: str | None) -> _Worker:
        """A worker of that interpreter: this environment's forked from the pool's fork server (started
        with the first, and importing its preload), another release's a fresh interpreter. Under _lock."""
        if python is not None or not FORKS:
            return _Worker(env, self.stderr, python)
        if self._zygote is not None and self._zygote.process.poll() is not None:
            self._zygote.close()  # died (killed from outside): a new one
            self._zygote = None
        if self._zygote is None:
            stdout = self.stderr if self.stderr is not None else 2  # the parent's fd 2: never its stdout
            self._zygote = Zygote(self.env, stdout, self.stderr, env.get(PRELOAD))
        return _Worker(env, self.stderr, zygote=self._zygote)

    def _release(self, handle: LocalHandle, worker: _Worker | None) -> None:
        """A task ended: its worker (None: killed) waits for the next task; a submitted one is let go."""
        with self._lock:
            self._submitted.discard(handle)
            if worker is not None:
                self._idle.append(worker)


_started_ahead: dict[str, Workers] = {}  # preload -> a pool whose first worker started ahead of the command


def start_ahead(preload: str, count: int = 1) -> None:
    """Starts a pool's first `count` workers (`preload` imported) now, ahead of the caller's own imports,
    so that their Python and Triton start-up overlaps them; `warm_pool(preload)` takes them."""
    if preload in _started_ahead:
        return
    workers = Workers(jobs=count)
    try:
        workers.warm(preload=preload, count=count)
    except OSError:  # no descriptors left (ulimit -n): the command starts its own, meets it and says so
        workers.close()
        return
    _started_ahead[preload] = workers


def warm_pool(preload: str, jobs: int = 1, timeout: float = 600, count: int = 1) -> Workers:
    """A pool with `count` workers started (`preload` imported): those started ahead, where there are."""
    workers = _started_ahead.pop(preload, None) or Workers()
    workers.jobs, workers.timeout = max(jobs, 1), timeout
    return workers.warm(preload=preload, count=count)


def close_ahead() -> None:
    """Kills the workers started ahead that no pool took (a command that failed before it needed them)."""
    while _started_ahead:
        _started_ahead.popitem()[1].close()


def _where_any(handles: list[LocalHandle]) -> str | None:
    """Where the user's code is in the first running task that says (its worker's stack)."""
    for handle in handles:
        where = handle.where()
        if where:
            return where
    return None


def _settled(handles: list[LocalHandle]) -> list[LocalHandle]:
    """Those of the handles whose task has ended, waiting up to _POLL seconds for one to."""
    with contextlib.suppress(OSError, ValueError):  # a descriptor closed by a cancel: settled below
        ready, _, _ = select.select(handles, [], [], _POLL)
        return [handle for handle in handles if handle.settle(handle in ready)]
    return [handle for handle in handles if handle.settle(True)]


class LocalHandle:
    """A task on a local worker: the Handle `Workers.submit` returns (and what `run` keeps for each
    task in flight). Any thread may ask it; the first to see the task end takes its Outcome."""

    def __init__(self, workers: Workers, task: Task, timeout: float | None = None):
        self._workers = workers
        self._timeout = workers.timeout if timeout is None else timeout
        self._worker = workers._take(task.python)
        self._outcome: Outcome | None = None
        self._lock = threading.Lock()
        try:
            self._worker.send(task)
        except BaseException:  # it died at start, or the caller was interrupted: no worker left unowned
            self._worker.kill()
            raise
        self._started = time.monotonic()

    def where(self) -> str | None:
        """The user's file and line the task runs now, if it runs the user's code (None once ended)."""
        if self._outcome is not None:
            return None
        return self._worker.where_stuck()

    def fileno(self) -> int:
        """The worker's result pipe (for select): readable once it answers or dies."""
        return self._worker.results

    def done(self) -> bool:
        return self.settle(readable(self._worker.results, 0))

    def result(self) -> Outcome:
        """The task's Outcome, once it has ended: answered, failed, crashed, timed out or cancelled."""
        while self._outcome is None:
            self.settle(readable(self._worker.results, _POLL))
        return self._outcome

    def cancel(self) -> bool:
        """Ends the task now: its worker is killed and reaped (nothing of it is left), and its Outcome
        says `cancelled`. False where it had ended already."""
        with self._lock:
            if self._outcome is not None:
                return False
            self._worker.kill()
            self._end(cancelled())
            return True

    def settle(self, answered: bool) -> bool:
        """Whether the task has ended, taking its Outcome if it just did: `answered` (its result pipe is
        readable) brings the worker's answer or its death; else the time limit is looked at."""
        with self._lock:
            if self._outcome is None and answered:
                answer = self._worker.receive()
                if answer is not None:
                    self._end(answer, self._worker)  # which then waits for the next task
                else:  # the worker died: its task failed, the worker is gone
                    died = self._worker.death()
                    self._end(Outcome(error=died, exit_code=ExitStatus.FAILED, error_type="CompileError"))
            elif self._outcome is None and time.monotonic() - self._started > self._timeout:
                where = self._worker.where_busy()
                self._worker.kill()
                message = f"timed out after {self._timeout:g} s ({where})"
                self._end(Outcome(error=message, exit_code=ExitStatus.USAGE, timed_out=True))
            return self._outcome is not None

    def _end(self, outcome: Outcome, worker: _Worker | None = None) -> None:
        self._outcome = outcome
        self._workers._release(self, worker)


class _Worker:
    def __init__(self, env: dict[str, str], stderr, python: str | None = None, zygote: Zygote | None = None):
        read_end, write_end = os.pipe()
        self.python = python
        self.tasks = 0  # sent so far
        # Where the worker writes its stack when asked (STACK_SIGNAL), to say where a task was stuck.
        self._stack = tempfile.TemporaryFile()  # noqa: SIM115 - closed in kill()
        self.process: subprocess.Popen | Forked
        if zygote is not None:  # this environment's worker: forked, its imports shared
            preload = {PRELOAD: env[PRELOAD]} if PRELOAD in env else {}
            self.process = zygote.fork(preload, {RESULT_FD: write_end, STACK_FD: self._stack.fileno()})
        else:
            env = {**env, RESULT_FD: str(write_end), STACK_FD: str(self._stack.fileno()), "PYTHONFAULTHANDLER": ""}
            env[PARENT] = str(os.getpid())
            if python is not None:  # another Triton release's environment
                env.update(_foreign_environment(env))
            self.process = subprocess.Popen(
                [python or sys.executable, "-m", "tritonscope.isolate"],
                stdin=subprocess.PIPE,
                stdout=stderr if stderr is not None else 2,  # the parent's fd 2: never its stdout
                stderr=stderr,
                env=env,
                pass_fds=(write_end, self._stack.fileno()),
                start_new_session=True,  # a group of its own: killed, it takes ptxas and the like with it
            )
        os.close(write_end)
        self.results = read_end
        self._stream = os.fdopen(read_end, "rb")
        self._input: IO[bytes] = self.process.stdin  # type: ignore[assignment]  # a pipe: asked for above

    def send(self, task: Task) -> None:
        write_message(self._input, pickle.dumps(task))
        self.tasks += 1

    def receive(self) -> Outcome | None:
        try:
            return read_message(self._stream)
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
        """The user's file and line the worker's task is running now, or None."""
        text = self.stack()
        return stuck_in_dump(text) if text else None

    def where_busy(self) -> str:
        """Where the worker's time goes now, said for a time-out: the user's line it is stuck at, or
        the step of Triton's compiler (or of tritonscope) it is in, or that it was still starting."""
        started = self._pid_now()
        if self.process.poll() is None and (not started or not _catches(started, STACK_SIGNAL)):
            return "the worker was still starting: Python and Triton were being imported"
        text = self.stack()
        return (busy_in_dump(text) if text else None) or "where it was could not be read"

    def stack(self) -> str | None:
        """The worker's stack now (written by faulthandler on STACK_SIGNAL, even from inside C code), or
        None if it does not say in time."""
        started = self._pid_now()
        if self.process.poll() is not None or not started or not _catches(started, STACK_SIGNAL):
            return None  # a worker still starting would be killed by the signal
        with contextlib.suppress(OSError, ValueError):  # ValueError: closed by a kill in another thread
            self._stack.seek(0)
            self._stack.truncate()  # the stack written now alone (the worker writes at this offset)
            self.process.send_signal(STACK_SIGNAL)
            deadline = time.monotonic() + 1
            while time.monotonic() < deadline:
                time.sleep(0.05)
                self._stack.seek(0)
                text = self._stack.read().decode(errors="replace")
                if "File " in text and text.endswith("\n"):
                    return text
        return None

    def _pid_now(self) -> int | None:
        """The worker's id without waiting: None while its fork server has not forked it yet, 0 where
        it never will (the server is gone)."""
        return self.process.started() if isinstance(self.process, Forked) else self.process.pid

    def kill(self) -> None:
        """The worker and what it started (ptxas, a kernel file's children: its process group) end now."""
        started = self._pid_now()
        if self.process.poll() is None and started:  # None: not forked yet (its kill gives it up); 0: never
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(started, signal.SIGKILL)  # the unreaped worker keeps its id theirs
        self.process.kill()
        self.process.wait()
        for stream in (self._stack, self._input, self._stream):
            with contextlib.suppress(OSError):
                stream.close()


def _catches(pid: int, signum: int) -> bool:
    """Whether the process has a handler for the signal (Linux: its SigCgt mask), so that sending it
    cannot end the process; True where that cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except (OSError, ValueError, IndexError):
        return True
    return True


def _foreign_environment(env: dict[str, str]) -> dict[str, str]:
    """What an interpreter of another environment needs to run this tritonscope: a folder holding only
    a link to this package goes first on its path, so it imports this tritonscope and its own Triton
    (the package's parent folder would also bring this environment's Triton)."""
    import hashlib

    from ..core.fileio import user_cache_dir

    package = Path(__file__).resolve().parents[1]  # tritonscope/, this file being isolate/local.py
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
