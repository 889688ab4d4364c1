"""`fit --rank`: each cell's whole launch's time on its target's GPU, with nothing compiled beyond
what `fit` compiles.

A worker compiles and judges a cell as `fit` does (app/fit.py's `measure_ranked`); for a cell that
fits an NVIDIA target with figures, it also finds the launch's grid (`--grid` evaluated for the cell's
values, a captured launch's, or the file's `grid(meta)`) and sends the compile back unfinished.
This process finishes those (their SASS read with its line information, which the per-warp model
needs for the loops' trip counts) and estimates them (analysis/launch_time.py), in a thread of its
own, while the workers compile the next cells: nvdisasm runs beside them, once for every GROUP cells
of an architecture (its set-up is most of a run), and once per architecture for the rest at the end.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, replace
from typing import Any

from ..analysis import launch_time, line_time, scoreboards
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
    """Estimates cells in a thread of this process as they come in (module docstring)."""

    def __init__(self) -> None:
        self.waiting: queue.Queue[tuple[int, ToRank] | None] = queue.Queue()
        self.found: dict[int, tuple[LaunchEstimate | None, str | None]] = {}
        self.failed: BaseException | None = None
        self.thread = threading.Thread(target=self._work, name="fit-rank", daemon=True)
        self.thread.start()

    def add(self, index: int, item: ToRank) -> None:
        self.waiting.put((index, item))

    def finish(self) -> dict[int, tuple[LaunchEstimate | None, str | None]]:
        """Every estimate, by cell, once the last one is made."""
        self.waiting.put(None)
        self.thread.join()
        if self.failed is not None:
            raise self.failed
        return self.found

    def _work(self) -> None:
        waiting: list[tuple[int, ToRank]] = []  # cells held for more of their architecture
        done = False
        while not done:
            batch = [self.waiting.get()]
            while not self.waiting.empty():
                batch.append(self.waiting.get_nowait())
            done = None in batch
            waiting += [item for item in batch if item is not None]
            ready = waiting if done else _whole_groups(waiting)
            taken = {index for index, _ in ready}
            waiting = [item for item in waiting if item[0] not in taken]
            try:
                if ready and self.failed is None:
                    self._estimate(ready)
            except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
                self.failed = exc

    def _estimate(self, items: list[tuple[int, ToRank]]) -> None:
        from ..analysis.artifacts import to_compilation
        from ..triton_api.compiler import disassembled
        from ..triton_api.tools import disassemble_lines

        # Their SASS with line information, one nvdisasm run per architecture (nvdisasm's set-up is
        # most of a run), kept where each one's `disassembled` below reads it.
        disassemble_lines([item.compiled.artifacts.binary for _, item in items])
        for index, item in items:
            compiled = item.compiled
            artifacts = disassembled(compiled.artifacts, compiled.target)  # its SASS with the line map's lines
            c = to_compilation(compiled.spec, compiled.variant, artifacts, compiled.target)
            schedule = scoreboards.schedule(c)
            per_warp = line_time.estimate(c, schedule) if schedule is not None else None
            found = launch_time.estimate(c, item.grid, item.grid_from, per_warp, schedule) if per_warp else None
            self.found[index] = (found, None if found else "no estimate: its SASS could not be read")


GROUP = 4  # cells of one architecture estimated together while the compiles go on (the rest at the end)


def _whole_groups(waiting: list[tuple[int, ToRank]]) -> list[tuple[int, ToRank]]:
    """The cells of each architecture that has GROUP or more waiting."""
    from ..triton_api.cubins import architecture

    by_arch: dict[int, list[tuple[int, ToRank]]] = {}
    for item in waiting:
        by_arch.setdefault(architecture(item[1].compiled.artifacts.binary), []).append(item)
    return [item for group in by_arch.values() if len(group) >= GROUP for item in group]


def with_estimates(cells: list[Cell], found: dict[int, tuple[LaunchEstimate | None, str | None]]) -> list[Cell]:
    return [
        replace(cell, estimate=found[i][0], estimate_note=found[i][1]) if i in found else cell
        for i, cell in enumerate(cells)
    ]
