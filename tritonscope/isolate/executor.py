"""The executor interface every fan-out of tasks goes through, and `pool`, which picks its
implementation: local workers (local.Workers), or a Ray cluster's (cluster.RayWorkers) after
`use_cluster`. Callers see one interface and the same outcomes whichever runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .local import Workers
from .tasks import Outcome, Task


class Handle(Protocol):
    """One submitted task. Any thread may ask it or cancel it."""

    def done(self) -> bool:
        """Whether the task has ended (answered, failed, crashed, timed out or cancelled)."""
        ...

    def result(self) -> Outcome:
        """Waits for the task to end; its Outcome (`cancelled` set where `cancel` ended it)."""
        ...

    def cancel(self) -> bool:
        """Ends the task now, its process killed (nothing of it left); False where it had ended."""
        ...


class Executor(Protocol):
    """Where tasks run. Every implementation keeps the same guarantees: a task that crashes or
    passes `timeout` is one failed Outcome; an exception in `run` (Ctrl-C, SIGTERM) ends every task
    still running; `close` ends those submitted and still running; outcomes are the same values."""

    jobs: int  # tasks `run` keeps in flight at once
    timeout: float  # seconds a task may run before it is killed (Outcome.timed_out)

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc_info: object) -> None: ...

    def warm(self, python: str | None = None, count: int = 1, preload: str | None = None) -> Executor:
        """Starts `count` workers now so their start-up overlaps the caller's work; each imports the
        module `preload` before its first task (a no-op where the executor keeps its own workers)."""
        ...

    def run(self, tasks: list[Task], on_done: Callable[[int, Outcome], None] | None = None) -> list[Outcome]:
        """Every task's Outcome, in task order; `on_done(index, outcome)` as each ends."""
        ...

    def call(self, task: Task) -> Any:
        """One task's value, or its error raised here."""
        ...

    def submit(self, task: Task) -> Handle:
        """Starts one task now and returns its handle (the time limit holds while someone waits on it)."""
        ...

    def close(self) -> None: ...


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


def drive_cluster(address: str, stdout: Any) -> int | None:
    """--cluster: None in the process that drives Ray (the command runs there); else the exit code of
    the command run again in a child that drives it (cluster.drive_in_child says why)."""
    from .cluster import drive_in_child

    return drive_in_child(address, stdout)


def pool(jobs: int = 1, timeout: float = 600, env: dict[str, str] | None = None) -> Executor:
    """The executor for a fan-out of tasks: local workers, or a Ray cluster's after `use_cluster`."""
    if _cluster is None:
        return Workers(jobs=jobs, timeout=timeout, env=env)
    from .cluster import RayWorkers

    return RayWorkers(_cluster, timeout=timeout, env=env)
