"""Saves of a kernel file, as they happen: what `dump --watch`, `explain --watch` and the explorer
recompile on. Any editor's save counts: written in place, or a new file renamed over the old one
(the folder is watched, and its changes are matched to the file by path).

watchfiles runs in a thread of its own: in the main thread it would take every signal for Ctrl-C
(its Rust loop reports any error of Python's signal handlers as one), where SIGTERM must stay 143."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path


def saves(files: Iterable[str | Path], stop: threading.Event | None = None) -> Iterator[set[Path]]:
    """Each time one or more of `files` is saved, the set of those saved; until `stop` is set. The
    watch starts here, not at the first `next()`: a save made while the caller compiles and draws
    (before it asks for the next) is kept for it, never lost between two watches."""
    from watchfiles import watch

    wanted = {Path(f).resolve() for f in files}
    folders = sorted({str(path.parent) for path in wanted})
    stop = stop or threading.Event()
    found: queue.Queue = queue.Queue()

    def follow() -> None:
        for changes in watch(*folders, stop_event=stop, recursive=False, debounce=200, step=50, raise_interrupt=False):
            found.put(changes)

    threading.Thread(target=follow, daemon=True).start()
    return _saved(found, wanted, stop)


def _saved(found: queue.Queue, wanted: set[Path], stop: threading.Event) -> Iterator[set[Path]]:
    try:
        while not stop.is_set():
            try:
                changes = found.get(timeout=0.2)
            except queue.Empty:
                continue
            saved = {Path(path).resolve() for _, path in changes} & wanted
            if saved and all(path.exists() for path in saved):  # a rename's first half: the file is back next
                yield saved
    finally:
        stop.set()
