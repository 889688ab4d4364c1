"""The explorer's compiles, in a child process through the executor: one request at a time, a newer
one cancelling the older (its process killed with what it started), the steps of the one running
read as it tells them (app/explore.py writes them to a file), with the stages filed so far among
them (read here and shown as Triton makes the next), and a spare worker kept warm so that the
request after a cancel does not wait for Triton's start-up.

The callbacks run in a thread of this module's: the app hands them to its own thread.
"""

from __future__ import annotations

import pickle
import select
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..app import explore
from ..core.model import VariantRequest
from ..isolate import Outcome, task, warm_pool

POLL = 0.005  # seconds between looks at the steps told (the stages filed so far among them)
Step = Callable[[int, str], None]  # (ticket, the step starting now)
Early = Callable[[int, Any], None]  # (ticket, the ExploreResult of its stages so far)
Done = Callable[[int, Outcome], None]  # (ticket, its outcome)


class Compiles:
    """Starts its first worker at once (Triton's start-up overlaps the caller's); `submit` returns a
    ticket, and `on_done` gets each ticket's outcome, unless a newer request cancelled it."""

    def __init__(self, on_step: Step | None = None, on_done: Done | None = None, timeout: float = 600.0):
        self._workers = warm_pool(explore.WARM, jobs=2, timeout=timeout)  # launch.py may have started it
        self._folder = tempfile.TemporaryDirectory(prefix="tritonscope-explore-")
        self.on_step, self.on_done = on_step, on_done
        self.on_early: Early | None = None  # the app's, where it shows the stages as they are made
        self._lock = threading.Lock()
        self._tickets = 0
        self._running: tuple[int, Any] | None = None  # (ticket, handle) of the compile in flight
        self._spare = False  # whether to keep an idle worker (`spare`)

    def submit(self, request: VariantRequest) -> int:
        """Starts compiling `request` (the one in flight, if any, is cancelled first); its stages, as they
        are made, are handed to `on_early` where one is set."""
        early = self.on_early is not None
        return self._start(lambda told: task(explore.explored, request, told, early))

    def machine_code(self, result) -> int:
        """Starts reading the SASS of a variant shown with Triton's stages only (`with_machine_code`)."""
        return self._start(lambda told: task(explore.with_machine_code, result))

    def live_registers(self, result) -> int:
        """Starts reading the registers live per line of a variant on screen (`with_live_registers`)."""
        return self._start(lambda told: task(explore.with_live_registers, result))

    def pipeline(self, request: VariantRequest) -> int:
        """Starts capturing the pass pipeline of `request` (cancelling what is in flight)."""
        return self._start(lambda told: task(explore.pipeline, request))

    def _start(self, make: Callable[[str], Any]) -> int:
        with self._lock:
            self._tickets += 1
            ticket = self._tickets
            if self._running is not None:
                self._running[1].cancel()
            told = Path(self._folder.name) / f"{ticket}.steps"
            handle = self._workers.submit(make(str(told)))
            self._running = (ticket, handle)
        threading.Thread(target=self._follow, args=(ticket, handle, told), daemon=True).start()
        return ticket

    def spare(self) -> None:
        """Keeps one idle worker started from now on (after the first screen: it would slow the first
        compile), its first compile done (`explore.warm_up`); one is started again after each task
        that ends, where a cancel killed the last idle one (not while a compile runs: it would slow it)."""
        self._spare = True
        self._workers.warm(count=1, preload=explore.SPARE)

    def cancel(self) -> None:
        with self._lock:
            if self._running is not None:
                self._running[1].cancel()

    def close(self) -> None:
        """Ends every worker, and whatever runs in them; the steps' folder is removed."""
        with self._lock:
            self._spare = False
        self._workers.close()
        self._folder.cleanup()

    def _follow(self, ticket: int, handle, told: Path) -> None:
        read, shown = 0, explore.StagesShown()
        while not _ended(handle):
            read = self._steps(ticket, told, read, shown)
        outcome = handle.result()
        for path in told.parent.glob(f"{told.name}*"):  # its steps, and stages so far not read
            path.unlink(missing_ok=True)
        with self._lock:
            if self._running is not None and self._running[0] == ticket:
                self._running = None
            idle = self._running is None
        if not outcome.cancelled and self.on_done is not None:
            self.on_done(ticket, outcome)
        with self._lock:  # not after `close`: that worker would outlive the explorer's
            if idle and self._spare:
                self._workers.warm(count=1, preload=explore.SPARE)

    def _steps(self, ticket: int, told: Path, read: int, shown: explore.StagesShown) -> int:
        try:
            text = told.read_text(encoding="utf-8")
        except OSError:  # not written yet
            return read
        lines = text[read:].split("\n")[:-1]  # whole lines only
        handed = [int(step[len(explore.EARLY) :]) for step in lines if step.startswith(explore.EARLY)]
        for step in lines:
            if not step.startswith(explore.EARLY) and self.on_step is not None:
                self.on_step(ticket, step)
        if handed:  # the newest stages so far only: they hold those before them
            self._early(ticket, told, handed, shown)
        return read + sum(len(line) + 1 for line in lines)

    def _early(self, ticket: int, told: Path, handed: list[int], shown: explore.StagesShown) -> None:
        """The stages filed so far, named in a file written whole before its step was told; the files
        of this look removed once read."""
        try:
            early = pickle.loads(Path(explore.early_file(str(told), max(handed))).read_bytes())
        except (OSError, pickle.UnpicklingError, EOFError):
            return  # the compile's own result comes anyway
        finally:
            for number in handed:
                Path(explore.early_file(str(told), number)).unlink(missing_ok=True)
        result = shown.result(early)
        if result is not None and self.on_early is not None:
            self.on_early(ticket, result)


def _ended(handle) -> bool:
    try:
        select.select([handle], [], [], POLL)
    except (OSError, ValueError):  # its pipe closed by a cancel: done() says so
        pass
    return handle.done()
