"""`fit --rank`: each cell's whole launch's time on its target's GPU, with nothing compiled beyond
what `fit` compiles.

A worker compiles and judges a cell as `fit` does (app/fit.py's `measure_ranked`); for a cell that
fits an NVIDIA target with figures, it also finds the launch's grid (`--grid` evaluated for the cell's
values, a captured launch's, or the file's `grid(meta)`) and sends the compile back unfinished.
This process finishes those (their SASS read with its line information, which the per-warp model
needs for the loops' trip counts) and estimates them (analysis/launch_time.py), in a thread of its
own, a target's cells together once its last has compiled (one nvdisasm run: its set-up is most of
a run), while the workers compile the next target's (app/fit.py compiles them target by target).
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, replace
from typing import Any

from ..analysis import launch_time, scoreboards
from ..analysis.fitting import FITS, UNKNOWN
from ..analysis.launch_time import LaunchEstimate
from ..core.launch_grid import GridSpec
from ..results.fit import Cell

NO_FIGURES = "no estimate: the targets table has no speeds for this target's GPUs"
NOT_NVIDIA = "no estimate: the per-warp model reads NVIDIA's machine code"
NO_FIT = "no estimate: it does not fit"


@dataclass(frozen=True)
class Ranking:
    """What `--rank` asks: the grid as given (None: each cell's captured launch, or the file's hook)."""

    grid: GridSpec | None = None


@dataclass(frozen=True)
class ToRank:
    """A cell's compile sent back unfinished, with the grid its launch's time is for."""

    compiled: Any  # app.walk.prepare.Undisassembled
    grid: tuple[int, ...]
    grid_from: str


def why_not(cell: Cell, target) -> str | None:
    """Why a cell gets no estimate, or None where it can."""
    if target.backend != "cuda":
        return NOT_NVIDIA
    if target.speeds is None:
        return NO_FIGURES
    if cell.verdict not in (FITS, UNKNOWN):
        return NO_FIT
    return None


class Ranker:
    """Estimates cells in a thread of this process as they come in (module docstring). `columns`: the
    cells' indices by target, in the order they are compiled; a target's cells are estimated together
    once the last of them has come in (one nvdisasm run for them all)."""

    def __init__(self, columns: list[list[int]]) -> None:
        self.column_of = {index: n for n, column in enumerate(columns) for index in column}
        self.left = [len(column) for column in columns]
        self.waiting: queue.Queue[list[tuple[int, ToRank]] | None] = queue.Queue()
        self.held: list[list[tuple[int, ToRank]]] = [[] for _ in columns]
        self.found: dict[int, tuple[LaunchEstimate | None, str | None]] = {}
        self.failed: BaseException | None = None
        self.thread = threading.Thread(target=self._work, name="fit-rank", daemon=True)
        self.thread.start()

    def add(self, index: int, item: ToRank | None) -> None:
        """A cell's compile has ended (`item`: what to estimate, None where nothing is)."""
        column = self.column_of[index]
        if item is not None:
            self.held[column].append((index, item))
        self.left[column] -= 1
        if not self.left[column]:
            self.waiting.put(self.held[column])

    def finish(self) -> dict[int, tuple[LaunchEstimate | None, str | None]]:
        """Every estimate, by cell, once the last one is made (a target cut short by Ctrl-C: those that
        came in)."""
        for column, left in enumerate(self.left):
            if left:
                self.waiting.put(self.held[column])
        self.waiting.put(None)
        self.thread.join()
        if self.failed is not None:
            raise self.failed
        return self.found

    def _work(self) -> None:
        while (items := self.waiting.get()) is not None:
            try:
                if items and self.failed is None:
                    self._estimate(items)
            except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
                self.failed = exc

    def _estimate(self, items: list[tuple[int, ToRank]]) -> None:
        from ..analysis.artifacts import to_compilation
        from ..triton_api.compiler import disassembled
        from ..triton_api.tools import disassemble_lines

        # Their SASS with line information, one nvdisasm run for the target (its set-up is most of a
        # run); listings exact only in their spaces are not kept (triton_api/tools.py)
        listings = disassemble_lines([item.compiled.artifacts.binary for _, item in items], exact=False)
        for (index, item), listing in zip(items, listings, strict=True):
            compiled = item.compiled
            artifacts = disassembled(compiled.artifacts, compiled.target, listing)
            c = to_compilation(compiled.spec, compiled.variant, artifacts, compiled.target)
            schedule = scoreboards.schedule(c)  # the per-warp walks are made at the occupancies the launch needs
            found = launch_time.estimate(c, item.grid, item.grid_from, None, schedule) if schedule else None
            self.found[index] = (found, None if found else "no estimate: its SASS could not be read")


def with_estimates(cells: list[Cell], found: dict[int, tuple[LaunchEstimate | None, str | None]]) -> list[Cell]:
    return [
        replace(cell, estimate=found[i][0], estimate_note=found[i][1]) if i in found else cell
        for i, cell in enumerate(cells)
    ]
