"""A front end's session: many requests over a long life (the agent server, the explorer), each
answered by a task in a warm worker and kept, so that asking again is answered at once.

    session = Session(preload="tritonscope.app.dump").warm()   # a worker starts (and imports) now
    call = session.call(task(dump, request, None, None), timeout=300, inputs=(kernel_file,))
    value = call.result()      # the task's value, or its error raised here; from the cache if asked before
    call.cancel()              # from any thread: a waiting call never runs, a running one's worker is killed
    session.close()

One task runs at a time (a later call waits its turn, so no two are ever mixed; a kept value is
answered at once, even while a task runs); a task's own time limit ends its worker, never the
session. Values are kept by task, and by the state of the files the task reads (`inputs`): a
kernel file changed on disk is compiled again, and the warm workers are started afresh first,
since they may hold a module imported from the old files (a kernel file's helpers are imported
once per process).
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .local import LocalHandle, Workers
from .tasks import Outcome, Task, cancelled

Fingerprint = tuple[tuple[str, int, int, int], ...]


class Session:
    def __init__(self, preload: str | None = None, timeout: float = 300.0, keep: int = 64):
        self.preload, self.timeout, self.keep = preload, timeout, keep
        self._workers = Workers(timeout=timeout)
        self._values: OrderedDict[tuple[Task, Any, Fingerprint], Any] = OrderedDict()  # least recently used first
        self._seen: dict[str, Fingerprint] = {}  # each input's state when a worker last read it
        self._turn = threading.Lock()  # held by the call whose task runs
        self._kept = threading.Lock()  # the values and the states seen

    def warm(self) -> Session:
        """Starts a worker now, importing `preload`, so the first call finds it ready."""
        self._workers.warm(preload=self.preload)
        return self

    def call(
        self, task: Task, timeout: float | None = None, inputs: Iterable[str | Path] = (), keep: bool = True
    ) -> Call:
        """A call of `task` (not started yet): its `result()` runs it, or answers from what is kept.
        `keep=False`: a task that acts (runs a program, writes a folder) runs every time."""
        return Call(self, task, timeout or self.timeout, _fingerprint(inputs), keep)

    def answer(self, task: Task, timeout: float | None = None, inputs: Iterable[str | Path] = ()) -> Any:
        """`task`'s value (kept, or computed now), or its error raised here."""
        return self.call(task, timeout, inputs).result()

    def close(self) -> None:
        """Ends every worker (a task still running is cancelled)."""
        self._workers.close()

    def _run(self, call: Call) -> Outcome:
        """The call's outcome: its kept value (at once, even while another task runs), or its task
        run in its turn (cancelled: never started, or its worker killed)."""
        key = (call.task, _typed(call.task), call.fingerprint)
        kept = self._kept_outcome(call, key)
        if kept is not None:
            return kept
        with self._turn:
            kept = self._kept_outcome(call, key)  # computed by a call this one waited behind
            if kept is not None:
                return kept
            if call.cancelled:
                return cancelled()
            self._renew_if_changed(call.fingerprint)
            outcome = call.started(self._workers.submit(call.task, call.timeout)).result()
        if outcome.ok and call.keep:
            with self._kept:
                self._values[key] = outcome.value
                while len(self._values) > self.keep:
                    self._values.popitem(last=False)
        return outcome

    def _kept_outcome(self, call: Call, key: tuple[Task, Any, Fingerprint]) -> Outcome | None:
        with self._kept:
            if not call.keep or key not in self._values:
                return None
            self._values.move_to_end(key)
            return Outcome(value=self._values[key])

    def _renew_if_changed(self, fingerprint: Fingerprint) -> None:
        """Fresh workers when a file a worker has read has changed since: they may hold its old import."""
        with self._kept:
            changed = any(self._seen.get(path, state) != state for path, state in _by_path(fingerprint).items())
            self._seen.update(_by_path(fingerprint))
        if changed:
            self._workers.close()
            self._workers = Workers(timeout=self.timeout).warm(preload=self.preload)


class Call:
    """One call of a session's task: `result()` in the thread that wants the value, `cancel()` from any."""

    def __init__(self, session: Session, task: Task, timeout: float, fingerprint: Fingerprint, keep: bool = True):
        self.session, self.task, self.timeout, self.fingerprint = session, task, timeout, fingerprint
        self.keep = keep
        self.cancelled = False
        self._handle: LocalHandle | None = None
        self._lock = threading.Lock()

    def result(self) -> Any:
        """The value, or the task's error raised here (Cancelled when cancelled; a time-out and a
        crash as the executor says them)."""
        return self.session._run(self).unwrap()

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            handle = self._handle
        if handle is not None:
            handle.cancel()

    def started(self, handle: LocalHandle) -> LocalHandle:
        """Notes the running task's handle; a cancel that came meanwhile ends it at once."""
        with self._lock:
            self._handle = handle
            late = self.cancelled
        if late:
            handle.cancel()
        return handle


def _by_path(fingerprint: Fingerprint) -> dict[str, Fingerprint]:
    found: dict[str, list] = {}
    for entry in fingerprint:
        found.setdefault(entry[0], []).append(entry)
    return {path: tuple(entries) for path, entries in found.items()}


def _fingerprint(inputs: Iterable[str | Path]) -> Fingerprint:
    """The state of what a task reads: a file with the Python files beside it (one added there may be
    imported; the agent names the helper files a kernel file imports among the inputs), or a folder
    itself (a capture is swapped in whole, a cache folder changes as entries are added)."""
    found = []
    for given in inputs:
        path = Path(given)
        files = [path, *sorted(set(path.parent.glob("*.py")) - {path})] if path.is_file() else [path]
        for item in files:
            try:
                stat = os.stat(item)
            except OSError:  # gone: its absence is the state
                found.append((str(path), hash(str(item)), -1, -1))
                continue
            found.append((str(path), stat.st_ino, stat.st_mtime_ns, stat.st_size))
    return tuple(found)


def _typed(value: Any) -> Any:
    """The types of a task's values, wherever they sit (a request's constexprs): 2, 2.0 and True are
    equal keys to Python, and compile three kernels (`SCALE=2.0` was answered with `SCALE=2`'s)."""
    if isinstance(value, (tuple, list, frozenset)):
        return tuple(_typed(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *(_typed(getattr(value, f.name)) for f in dataclasses.fields(value)))
    return type(value).__name__
