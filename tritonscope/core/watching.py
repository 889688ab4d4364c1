"""Saves of a kernel file, as they happen: what `dump --watch`, `explain --watch` and the explorer
recompile on. Any editor's save counts: written in place, or a new file renamed over the old one
(the folder is watched, and its changes are matched to the file by path)."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from pathlib import Path


def saves(files: Iterable[str | Path], stop: threading.Event | None = None) -> Iterator[set[Path]]:
    """Each time one or more of `files` is saved, the set of those saved; until `stop` is set."""
    from watchfiles import watch

    wanted = {Path(f).resolve() for f in files}
    folders = sorted({str(path.parent) for path in wanted})
    for changes in watch(*folders, stop_event=stop, recursive=False, debounce=200, step=50):
        saved = {Path(path).resolve() for _, path in changes} & wanted
        if saved and all(path.exists() for path in saved):  # a rename's first half: the file is back next
            yield saved
