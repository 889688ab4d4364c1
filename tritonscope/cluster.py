"""The isolate executor on a Ray cluster: the same Tasks and Outcomes as local workers, run on nodes.

`isolate.pool` returns a `RayWorkers` after `--cluster ADDRESS` (what `ray.init(address=...)`
takes: auto, HOST:PORT, ray://HOST:PORT); commands do not know which one runs. How each of
isolate's guarantees holds on Ray:

- a task is a Ray task with no retries, one CPU each; a node's Ray worker that crashes fails that
  task alone (WorkerCrashedError), and one past `timeout` is cancelled by force (its worker killed);
  at most as many tasks are in flight as the cluster has CPUs, so the time limit counts running
  time, not time in Ray's queue;
- Ctrl-C (any exception in the driver) cancels every task in flight by force; the rest were never
  submitted;
- the files a Task names travel with it: their common folder (so the kernel's sibling imports come
  too) is packed once into Ray's object store and unpacked once per node, and this tritonscope
  travels as a `py_modules` package, so nodes need neither a shared disk nor this tritonscope
  installed, only Python, Ray and Triton; on the node, paths into that folder are rewritten to the
  node's copy and back in the result, so outcomes (locations in the IR included) equal a local run's;
- a Task of another Triton release comes here as app/releases.py's `on_node`: the node runs it in
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
import socket
import sys
import tempfile
import time
from enum import Enum
from pathlib import Path
from typing import Any

from .core.errors import UsageError
from .isolate import Outcome, Task, _perform

_SKIPPED = {".git", ".hg", ".venv", "venv", "__pycache__", "node_modules", ".tox", ".mypy_cache", ".ruff_cache"}
BUNDLE_LIMIT = 64 << 20  # bytes of the kernel's folder sent to the nodes
_POLL = 0.1  # seconds between looks at the tasks in flight


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
    package = str(Path(__file__).resolve().parent)
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
    return ray


def _check_reachable(address: str) -> None:
    """A HOST:PORT that does not answer is said at once: Ray itself waits a minute or more."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # auto, or a form Ray reads itself
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise UsageError(
            f"--cluster {address}: nothing answers there ({exc.strerror or exc})",
            hint="start one with `ray start --head`, or give its address (auto, HOST:PORT, ray://HOST:10001)",
        ) from None


class RayWorkers:
    """isolate's executor interface on Ray (see isolate.py): `run`, `call`, `warm`, `close`."""

    def __init__(self, address: str, timeout: float = 600, env: dict[str, str] | None = None):
        self.ray = connect(address)
        self.timeout = timeout
        self.env = dict(env or {})
        self.jobs = max(int(self.ray.cluster_resources().get("CPU", 1)), 1)
        self._remote = self.ray.remote(num_cpus=1, max_retries=0)(on_node)

    def __enter__(self) -> RayWorkers:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        return None  # nothing to let go: the cluster's workers are Ray's

    def warm(self, python: str | None = None, count: int = 1, preload: str | None = None) -> RayWorkers:
        return self  # Ray starts and keeps its own workers

    def call(self, task: Task) -> Any:
        return self.run([task])[0].unwrap()

    def run(self, tasks: list[Task], on_done=None) -> list[Outcome]:
        outcomes: list[Outcome | None] = [None] * len(tasks)
        bundle = self._bundle([f for task in tasks for f in task.files])
        pending, self._tasks = list(enumerate(tasks)), tasks
        flying: dict[Any, tuple[int, float]] = {}  # ObjectRef -> (task index, submitted)
        try:
            while pending or flying:
                while pending and len(flying) < self.jobs:
                    index, task = pending.pop(0)
                    flying[self._submit(task, bundle)] = (index, time.monotonic())
                for index, outcome in self._collect(flying):
                    outcomes[index] = outcome
                    if on_done:
                        on_done(index, outcome)
        except BaseException:
            for ref in flying:
                with contextlib.suppress(Exception):
                    self.ray.cancel(ref, force=True)
            raise
        return outcomes  # type: ignore[return-value]

    def _submit(self, task: Task, bundle: Any) -> Any:
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

    def _collect(self, flying: dict):
        done, _ = self.ray.wait(list(flying), num_returns=1, timeout=_POLL)
        for ref in done:
            index, _ = flying.pop(ref)
            yield index, self._outcome(ref, self._tasks[index])
        now = time.monotonic()
        for ref, (index, started) in list(flying.items()):
            if now - started > self.timeout:
                flying.pop(ref)
                with contextlib.suppress(Exception):
                    self.ray.cancel(ref, force=True)
                yield index, Outcome(error=f"timed out after {self.timeout:g} s", exit_code=2)

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
        return _perform(task)
    here = unpack(bundle)
    return relocate(_perform(relocate(task, bundle.root, here)), here, bundle.root)


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
