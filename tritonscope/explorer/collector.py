"""Python's full garbage collections, run between keys rather than in the middle of one.

Textual leaves each frame's rows in reference cycles (a Strip caches the list holding itself that
its `divide` returns, for the compositor), which only a full collection frees: on fused attention
with three stage panes open, 30-40 thousand objects a second of cursor moves. The full collections
Python starts by itself then took 10-35 ms, inside whichever key was being answered (the H100
machine's CPU). The explorer starts them itself, each short as it runs often: once a key's or a
click's answer is on screen, before the next (a held key repeats every 30 ms or more), and once
nothing has come for QUIET seconds (what a compile's result left; the app asks only while no
variant compiles, whose stages are drawn as they come).
"""

from __future__ import annotations

import gc
import time

QUIET = 0.1  # seconds without input before a full collection
GAP = 0.05  # seconds at least between two, so that a stream of events (a wheel) costs little
NEVER = 1 << 30  # a full-collection threshold Python never reaches


class Collector:
    """Started with the app (`start`), told of every key and click (`input`) and of its answer on
    screen (`answered`), and asked often (`tick`)."""

    def __init__(self) -> None:
        self.last_input = self.last_collection = time.monotonic()
        self._threshold: tuple[int, ...] | None = None
        self._promoted = 0  # the collections of the middle generation, which promote to the oldest

    def start(self) -> None:
        """Python's own full collections stop; the younger generations' go on as before (short)."""
        self._threshold = gc.get_threshold()
        young, middle = self._threshold[:2]
        gc.set_threshold(young, middle, NEVER)
        self._promoted = _promotions()

    def stop(self) -> None:
        """Python's own full collections again (the tests run many apps in one process)."""
        if self._threshold is not None:
            gc.set_threshold(*self._threshold)
            self._threshold = None

    def input(self) -> None:
        self.last_input = time.monotonic()

    def answered(self) -> bool:
        """After the frame that answered a key or a click: a full collection, unless one ran GAP
        seconds ago or less; whether one ran."""
        return time.monotonic() - self.last_collection >= GAP and self._collect()

    def tick(self) -> bool:
        """A full collection once the input has paused for QUIET seconds; whether one ran."""
        return time.monotonic() - self.last_input >= QUIET and self._collect()

    def _collect(self) -> bool:
        if _promotions() == self._promoted:
            return False  # nothing reached the oldest generation since the last: nothing new to free
        gc.collect()
        self.last_collection, self._promoted = time.monotonic(), _promotions()
        return True


def _promotions() -> int:
    return gc.get_stats()[1]["collections"]
