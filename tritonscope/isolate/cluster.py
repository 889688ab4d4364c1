"""The executor on a Ray cluster: the same Tasks and Outcomes as local workers, run on nodes.

`isolate.pool` returns a `RayWorkers` after `--cluster ADDRESS` (what `ray.init(address=...)`
takes: auto, HOST:PORT, ray://HOST:PORT); commands do not know which one runs. How each of
the executor's guarantees (executor.py) holds on Ray:

- a task is a Ray task with no retries, one CPU each; a node's Ray worker that crashes fails that
  task alone (WorkerCrashedError), and one past `timeout` is cancelled by force (its worker killed);
  at most as many tasks are in flight as the cluster has CPUs, so the time limit counts running
  time, not time in Ray's queue;
- Ctrl-C (any exception in the driver) cancels every task in flight by force; the rest were never
  submitted; a submitted task's `cancel()` (from any thread) cancels it by force too, its Ray
  worker killed;
- the files a Task names travel with it: their common folder (so the kernel's sibling imports come
  too) is packed once into Ray's object store and unpacked once per node, and this tritonscope
  travels as a `py_modules` package, so nodes need neither a shared disk nor this tritonscope
  installed, only Python, Ray and Triton; on the node, paths into that folder are rewritten to the
  node's copy and back in the result, so outcomes (locations in the IR included) equal a local run's;
- a Task of another Triton release comes here as app/walk/releases.py's `on_node`: the node runs it in
  its own tritonscope environment of that release (envs/triton-X in the node's user cache), found
  there (made beforehand with `tritonscope envs add X`) or made on first use with pip (so the node
  needs the package index, or a pip configuration naming a shared wheel folder); the head
  installs nothing. A prepared environment rather than Ray's `pip` runtime environment: the same
  environments as a local run's, kept across jobs, and nodes prepared once need no network.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import logging
import os
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from .tasks import Outcome, Task, cancelled, perform

_SKIPPED = {".git", ".hg", ".venv", "venv", "__pycache__", "node_modules", ".tox", ".mypy_cache", ".ruff_cache"}
BUNDLE_LIMIT = 64 << 20  # bytes of the kernel's folder sent to the nodes
_POLL = 0.1  # seconds between looks at the tasks in flight
_HEAD_CHECK = 3.0  # seconds between looks at whether the cluster's head still answers
_GONE_WITHIN = 5.0  # seconds a head that is stopping may still answer after its driver died
_HEAD_GRACE = 5.0  # seconds a head may take to stop answering after its node ended a worker


def _ray():
    try:
        import ray  # type: ignore[import-not-found]  # an optional extra (tritonscope[cluster])
    except ImportError:
        raise UsageError(
            "--cluster needs Ray, which is not installed", hint="pip install 'tritonscope[cluster]'"
        ) from None
    return ray


def connect(address: str) -> Any:
    """Ray, connected to the cluster at `address` (once per process); its logs stay off stdout."""
    ray = _ray()
    if ray.is_initialized():
        return ray
    _check_reachable(address)
    package = str(Path(__file__).resolve().parents[1])  # tritonscope/, this file being isolate/cluster.py
    # ray.init puts in a SIGTERM handler of its own (sys.exit at any point, a traceback from inside an
    # import); tritonscope's is put back, so SIGTERM unwinds as everywhere else (tasks cancelled).
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}
    try:
        ray.init(
            address=address,
            runtime_env={"py_modules": [package], "excludes": ["__pycache__", "*.pyc"]},
            log_to_driver=False,
            logging_level=logging.ERROR,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise UsageError(
            f"--cluster {address}: cannot reach a Ray cluster there ({str(exc).splitlines()[0]})",
            hint="start one with `ray start --head`, or give its address (auto, HOST:PORT, ray://HOST:10001)",
        ) from None
    finally:
        for sig, handler in handlers.items():
            with contextlib.suppress(TypeError, ValueError):
                signal.signal(sig, handler)
    return ray


def _check_reachable(address: str, given: str | None = None) -> None:
    """A HOST:PORT that does not answer is said at once: Ray itself waits a minute or more. `given`:
    the cluster as --cluster named it, which answered at the start of the run: its head is gone now."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # auto, or a form Ray reads itself
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except (OSError, OverflowError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        if given is not None:
            raise UsageError(
                f"--cluster {given}: the cluster's head ({address}) stopped answering during the run ({why})",
                hint="start the head again (ray start --head) and run again, or run without --cluster",
            ) from None
        raise UsageError(
            f"--cluster {address}: nothing answers there ({why})",
            hint="start one with `ray start --head`, or give its address (auto, HOST:PORT, ray://HOST:10001)",
        ) from None


def _head_address(ray: Any, address: str) -> str:
    """HOST:PORT of the cluster's head as the driver reached it (`auto` named none), else `address`."""
    with contextlib.suppress(Exception):
        return str(ray.get_runtime_context().gcs_address or address)
    return address


_DRIVER_FD = "TRITONSCOPE_RAY_DRIVER_FD"  # in the child that drives Ray: where to say it finished
_done: int | None = None  # that descriptor, in that child


def drive_in_child(address: str, stdout: Any) -> int | None:
    """Ray ends its driver process at once (exit 1, no Python cleanup) when the node it is attached
    to, or the head, goes away mid-run. So the process the user started runs the same command again
    as a child that drives Ray, and says what happened when that child ends without finishing.

    Returns None in the driver (the command runs there), else the exit code to end with."""
    global _done
    if _DRIVER_FD in os.environ:
        _done = int(os.environ.pop(_DRIVER_FD))
        os.set_inheritable(_done, False)
        return None
    try:
        out = stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test runner's buffer): drive Ray here
        return None
    from ..core import scratch
    from .programs import Program

    read, write = os.pipe()
    argv = [sys.executable, "-m", "tritonscope", *sys.argv[1:]]
    env = {**os.environ, **scratch.environ(), _DRIVER_FD: str(write)}  # its temporary files go with this run's
    try:
        child = Program(argv, own_group=False, env=env, stdout=out, pass_fds=(write,))
    finally:
        os.close(write)  # the child's copy alone: the pipe ends with it
    try:
        with child:
            code = child.finish().returncode
        said = os.read(read, 16)
    finally:
        os.close(read)
    if said.isdigit():  # the command's own exit code (Ray may end the process otherwise after it)
        return int(said)
    code = 128 - code if code < 0 else code  # a signal's death as a shell says it
    # it ended without a word: the head gone is said as such. A head being stopped may answer a while
    # after its driver died (a loaded machine: Ray's processes end one by one): looked at a few times
    for _ in range(int(_GONE_WITHIN / 0.5)):
        _check_reachable(address, given=address)
        time.sleep(0.5)
    raise UsageError(
        f"--cluster {address}: the process driving Ray ended abruptly (exit {code}), without a result",
        hint="Ray ends its driver when this machine's Ray node fails; its log says why (/tmp/ray/session_latest/logs)",
    )


def finished(code: object) -> None:
    """In the child that drives Ray: tells the process the user started that the command ended, with
    this exit code, before Ray's own shutdown (which may end the process abruptly)."""
    if _done is not None:
        with contextlib.suppress(OSError):
            os.write(_done, str(code if isinstance(code, int) else int(bool(code))).encode())


class RayWorkers:
    """The executor interface (executor.Executor) on Ray: `run`, `call`, `submit`, `warm`, `close`."""

    def __init__(self, address: str, timeout: float = 600, env: dict[str, str] | None = None):
        self.ray = connect(address)
        self.address, self._head = address, _head_address(self.ray, address)
        self._looked = time.monotonic()  # when the head was last seen answering
        self.timeout = timeout
        self.env = dict(env or {})
        self.jobs = max(int(self.ray.cluster_resources().get("CPU", 1)), 1)
        self._remote = self.ray.remote(num_cpus=1, max_retries=0)(on_node)
        self._submitted: set[RayHandle] = set()  # submit's tasks not ended yet: `close` cancels them
        self._lock = threading.Lock()

    def __enter__(self) -> RayWorkers:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        """Cancels the submitted tasks still running; the cluster's workers are Ray's to keep."""
        with self._lock:
            running = list(self._submitted)
        for handle in running:
            handle.cancel()

    def warm(self, python: str | None = None, count: int = 1, preload: str | None = None) -> RayWorkers:
        return self  # Ray starts and keeps its own workers

    def call(self, task: Task) -> Any:
        return self.run([task])[0].unwrap()

    def submit(self, task: Task) -> RayHandle:
        """Sends one task now (its files with it) and returns its handle; `cancel()` cancels it by force."""
        handle = RayHandle(self, task, self._bundle(list(task.files)))
        with self._lock:
            self._submitted.add(handle)
        return handle

    def run(self, tasks: list[Task], on_done: Callable[[int, Outcome], None] | None = None) -> list[Outcome]:
        outcomes: list[Outcome | None] = [None] * len(tasks)
        bundle = self._bundle([f for task in tasks for f in task.files])
        pending = list(enumerate(tasks))
        flying: dict[RayHandle, int] = {}  # handle -> task index
        try:
            while pending or flying:
                while pending and len(flying) < self.jobs:
                    index, task = pending.pop(0)
                    flying[RayHandle(self, task, bundle)] = index
                done = set(self.ray.wait([handle.ref for handle in flying], num_returns=1, timeout=_POLL)[0])
                for handle in [h for h in flying if h.settle(h.ref in done)]:
                    index = flying.pop(handle)
                    outcomes[index] = outcome = handle.result()
                    if not outcome.ok:  # a task failed: the cluster's fault, or its own
                        self._check_head(now=True, grace=_ended_by_node(outcome))
                    if on_done:
                        on_done(index, outcome)
                self._check_head()
        except BaseException:
            for handle in flying:
                handle.cancel()
            raise
        return outcomes  # type: ignore[return-value]

    def _check_head(self, now: bool = False, grace: bool = False) -> None:
        """A head gone mid-run is said once (exit 2), not as every task's failure (Ray's workers end with
        SystemExit when their node loses the head) nor as a wait without end; looked at every few seconds.
        `grace`: a worker was ended by its node, which `ray stop` does before the head's port closes, so
        the head is looked at for a few seconds more before the task's failure is taken as its own."""
        if now or time.monotonic() - self._looked > _HEAD_CHECK:
            deadline = time.monotonic() + (_HEAD_GRACE if grace else 0)
            while True:
                self._looked = time.monotonic()
                _check_reachable(self._head, given=self.address)
                if self._looked >= deadline:
                    return
                time.sleep(0.5)

    def _send(self, task: Task, bundle: Any) -> Any:
        """The task as a Ray task: its ObjectRef."""
        # The node's own Python (a path here means nothing there: another release's task comes
        # wrapped to find the node's environment); relative paths made whole (no cwd on the node).
        task = _absolute_paths(dataclasses.replace(task, python=None))
        options = {"runtime_env": {"env_vars": self.env}} if self.env else {}
        return self._remote.options(**options).remote(task, bundle)

    def _bundle(self, files: list[str]) -> Any:
        """The folder holding the tasks' files, packed once into Ray's object store (None: no files)."""
        root = _common_folder(files)
        if root is None:
            return None
        return self.ray.put(pack(root))

    def _ended(self, handle: RayHandle) -> None:
        with self._lock:
            self._submitted.discard(handle)

    def _outcome(self, ref: Any, task: Task) -> Outcome:
        errors = self.ray.exceptions
        try:
            return _given_paths(self.ray.get(ref), task)
        except (errors.WorkerCrashedError, errors.NodeDiedError, errors.TaskCancelledError) as exc:
            why = f"the compiler process crashed on the cluster ({type(exc).__name__})"
            return Outcome(error=why, exit_code=1, error_type="CompileError")
        except errors.RuntimeEnvSetupError as exc:
            return Outcome(error=f"the node could not prepare the task's environment: {_first_line(exc)}", exit_code=2)
        except errors.RayError as exc:
            why = f"the cluster failed the task: {_first_line(exc)}"
            return Outcome(error=why, exit_code=1, error_type="CompileError")


class RayHandle:
    """A task on the cluster: the Handle `RayWorkers.submit` returns (and what `run` keeps for each task
    in flight). Any thread may ask it; the first to see the task end takes its Outcome."""

    def __init__(self, workers: RayWorkers, task: Task, bundle: Any):
        self._workers, self._task = workers, task
        self.ref = workers._send(task, bundle)
        self._started = time.monotonic()
        self._outcome: Outcome | None = None
        self._lock = threading.Lock()

    def done(self) -> bool:
        return self.settle(self._ready(0))

    def result(self) -> Outcome:
        """The task's Outcome, once it has ended: answered, failed, crashed, timed out or cancelled."""
        while self._outcome is None:
            if not self.settle(self._ready(_POLL)):
                self._workers._check_head()
        if _ended_by_node(self._outcome):
            self._workers._check_head(now=True, grace=True)
        return self._outcome

    def cancel(self) -> bool:
        """Cancels the Ray task by force (its Ray worker killed); its Outcome says `cancelled`. False
        where it had ended already."""
        with self._lock:
            if self._outcome is not None:
                return False
            self._force_cancel()
            self._end(cancelled())
            return True

    def settle(self, ready: bool) -> bool:
        """Whether the task has ended, taking its Outcome if it just did: `ready` (Ray has its result)
        brings the result or the cluster's failure; else the time limit is looked at."""
        with self._lock:
            if self._outcome is None and ready:
                self._end(self._workers._outcome(self.ref, self._task))
            elif self._outcome is None and time.monotonic() - self._started > self._workers.timeout:
                self._force_cancel()
                self._end(Outcome(error=f"timed out after {self._workers.timeout:g} s", exit_code=2, timed_out=True))
            return self._outcome is not None

    def _ready(self, wait: float) -> bool:
        return bool(self._workers.ray.wait([self.ref], num_returns=1, timeout=wait)[0])

    def _force_cancel(self) -> None:
        with contextlib.suppress(Exception):
            self._workers.ray.cancel(self.ref, force=True)

    def _end(self, outcome: Outcome) -> None:
        self._outcome = outcome
        self._workers._ended(self)


def _ended_by_node(outcome: Outcome) -> bool:
    """Whether a failed task's worker was ended under it (SystemExit) rather than failing on its own."""
    return (outcome.error or "").startswith("SystemExit")


def _first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


def _absolute_paths(task: Task) -> Task:
    for file in task.files:
        if not os.path.isabs(file) and os.path.exists(file):
            task = relocate(task, file, os.path.abspath(file), whole=True)
    return task


def _given_paths(outcome: Outcome, task: Task) -> Outcome:
    """The outcome with the files named as the caller named them (relative ones relative again)."""
    for file in task.files:
        if not os.path.isabs(file) and os.path.exists(file):
            outcome = relocate(outcome, os.path.abspath(file), file, whole=True)
    return outcome


def _common_folder(files: list[str]) -> str | None:
    """The one folder holding every file (and what the files import beside them), or None."""
    folders = [str(Path(f).resolve().parent) for f in files if os.path.isfile(f)]
    return os.path.commonpath(folders) if folders else None


@dataclasses.dataclass(frozen=True)
class Bundle:
    """A folder's files, as they travel to the nodes: `root` is where they are on the driver."""

    root: str
    files: tuple[tuple[str, bytes], ...]  # (path relative to root, content)
    digest: str


def pack(root: str) -> Bundle:
    """The files under `root` (not version control, environments, caches), up to BUNDLE_LIMIT bytes."""
    files, size = [], 0
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in _SKIPPED)
        for name in sorted(names):
            path = os.path.join(folder, name)
            if name.endswith(".pyc") or not os.path.isfile(path):
                continue
            size += os.path.getsize(path)
            if size > BUNDLE_LIMIT:
                raise UsageError(
                    f"--cluster: the kernel's folder {root} holds over {BUNDLE_LIMIT >> 20} MiB to send to the nodes",
                    hint="keep the kernel in a folder holding only its sources",
                )
            files.append((os.path.relpath(path, root), Path(path).read_bytes()))
    digest = hashlib.sha256(repr([(p, hashlib.sha256(b).hexdigest()) for p, b in files]).encode()).hexdigest()
    return Bundle(root, tuple(files), digest[:24])


def unpack(bundle: Bundle) -> str:
    """The node's copy of the bundle's folder, written once per node (content-addressed)."""
    folder = Path(tempfile.gettempdir()) / "tritonscope-cluster" / bundle.digest
    if not folder.is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=folder.parent))
        for relative, content in bundle.files:
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            (staging / relative).write_bytes(content)
        with contextlib.suppress(OSError):  # another worker of this node unpacked it first
            staging.rename(folder)
    return str(folder)


def on_node(task: Task, bundle: Bundle | None) -> Outcome:
    """In a Ray worker: the task with its paths moved into the node's copy of the files, and the
    outcome with them moved back, so that it reads as a local run's."""
    sys.stdout = sys.stderr  # the user's prints never reach the driver's stdout
    if bundle is None:
        return perform(task)
    here = unpack(bundle)
    return relocate(perform(relocate(task, bundle.root, here)), here, bundle.root)


def relocate(value: Any, old: str, new: str, whole: bool = False) -> Any:
    """`value` with every path (and text) under folder `old` naming the same file under `new`;
    with `whole`, only strings that are `old` entirely."""
    if isinstance(value, str):
        if value == old or whole:
            return new if value == old else value
        return value.replace(old + os.sep, new + os.sep) if old in value else value
    if isinstance(value, Path):
        return Path(relocate(str(value), old, new, whole))
    if isinstance(value, (tuple, list)):
        items = [relocate(v, old, new, whole) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return {relocate(k, old, new, whole): relocate(v, old, new, whole) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, (type, Enum)):
        fields = [f.name for f in dataclasses.fields(value) if f.init]
        return dataclasses.replace(value, **{f: relocate(getattr(value, f), old, new, whole) for f in fields})
    return value
