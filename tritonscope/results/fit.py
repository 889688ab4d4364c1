"""The result of `fit`: which configs of a kernel fit which GPU, as a matrix of configs x targets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..analysis.fitting import FITS, NO_FIT, UNKNOWN
from ..analysis.launch_time import LaunchEstimate
from ..core.errors import UsageError
from ..core.status import ExitStatus
from .base import Result

NO_COMPILE = "does not compile"
NOT_COMPILED = "not compiled"  # Ctrl-C stopped fit before this cell's compile ended
VERDICTS = (FITS, NO_FIT, NO_COMPILE, UNKNOWN, NOT_COMPILED)
__all__ = [
    "FITS",
    "NOT_COMPILED",
    "NO_COMPILE",
    "NO_FIT",
    "UNKNOWN",
    "VERDICTS",
    "Cell",
    "ConfigRow",
    "FitResult",
    "KernelFit",
]


@dataclass(frozen=True)
class Cell:
    """One config compiled for one target: whether it fits, and why."""

    verdict: str  # one of VERDICTS
    reason: str  # one line: the figures; the limit and the figure against it; the compiler's reason
    figures: dict[str, Any] = field(default_factory=dict)  # registers, spills, shared, occupancy ... (compiled)
    limit: str | None = None  # what does not fit: shared memory, tensor memory, threads, registers, budget
    buffers: tuple[str, ...] = ()  # the shared buffers, as explain lists them, where shared memory is over
    estimate: LaunchEstimate | None = None  # fit --rank: the launch's time on the target's GPU
    estimate_note: str | None = None  # fit --rank: why there is none
    grid_refused: str | None = None  # fit --rank: why --grid cannot be evaluated for it (the user's to fix)

    @property
    def fits(self) -> bool:
        return self.verdict == FITS


@dataclass(frozen=True)
class ConfigRow:
    """A row: one autotune config (or one point of a --vary grid, or one compile of a capture)."""

    label: dict[str, str]  # what tells it apart from the others: BLOCK_SIZE_M=128, num_warps=8 ...
    values: dict[str, Any]  # the same, typed: what a written pruner matches triton.Config's values against
    index: int | None = None  # its autotune config's number (`--config N`), where it is one
    launched: bool = False  # a capture's compile that the program launched

    def describe(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.label.items()) or "as specialized"


@dataclass(frozen=True)
class KernelFit:
    """One kernel's matrix: `cells[row][column]` for its rows and `targets`."""

    kernel: str
    file: str  # as the user named it (a sample, a path, DIR/:NAME)
    specialization: str  # the flags it was compiled with, as `dump` takes them
    rows: tuple[ConfigRow, ...]
    targets: tuple[str, ...]
    cells: tuple[tuple[Cell, ...], ...]
    sizes: tuple[str, ...] = ()  # varied arguments (--vary M=1,64): a launch's size, not a config's value

    def column(self, target: str) -> tuple[Cell, ...]:
        """The cells of one target, named as the fit was asked (`h100` is sm90's column too)."""
        if target not in self.targets:
            from ..core.targets import parse_name

            try:
                named = parse_name(target, "target")
            except UsageError:
                named = target  # no target of any fit: said as one of this fit's
            if named not in self.targets:
                raise UsageError(f"{target}: not a target of this fit; it has {', '.join(self.targets)}")
            target = named
        at = self.targets.index(target)
        return tuple(row[at] for row in self.cells)

    def fitting(self, target: str) -> tuple[int, ...]:
        """The rows (by position) that fit `target`; where its limit is unknown, those that compiled."""
        return tuple(i for i, cell in enumerate(self.column(target)) if cell.verdict in (FITS, UNKNOWN))

    def ranked(self, target: str) -> tuple[int, ...]:
        """fit --rank: the rows that fit `target` and have an estimate, the fastest first."""
        column = self.column(target)
        timed = [i for i in self.fitting(target) if column[i].estimate is not None]
        return tuple(sorted(timed, key=lambda i: (column[i].estimate.kernel_us, i)))  # type: ignore[union-attr]

    def ranked_by_size(self, target: str) -> list[tuple[str, tuple[int, ...]]]:
        """ranked(target) per value of the varied sizes (`M=64`, or "" where none is varied): the
        configs of one launch size against each other, not against another size's."""
        groups: dict[str, list[int]] = {}
        for i in self.ranked(target):
            label = ", ".join(f"{name}={self.rows[i].label.get(name)}" for name in self.sizes)
            groups.setdefault(label, []).append(i)
        return [(label, tuple(rows)) for label, rows in groups.items()]


@dataclass(frozen=True)
class FitResult(Result):
    kind: ClassVar[str] = "fit"
    kernels: tuple[KernelFit, ...]
    budgets: tuple[str, ...] = ()
    triton_version: str = ""
    notes: tuple[str, ...] = ()
    ranked: bool = False  # fit --rank: the cells carry the launch's estimated time
    configs_by_target: bool = False  # the file makes its autotune configs from the GPU: they differ by target

    @property
    def partial(self) -> bool:
        """Ctrl-C stopped the compiles: the cells that finished are shown, the others are NOT_COMPILED."""
        return any(c.verdict == NOT_COMPILED for k in self.kernels for row in k.cells for c in row)

    @property
    def refused_grid(self) -> str | None:
        """Why --grid could not be evaluated, where it could be for no cell: the user's to fix (exit 2),
        not a matrix of cells with no estimate."""
        cells = [cell for k in self.kernels for row in k.cells for cell in row]
        refused = [c.grid_refused for c in cells if c.grid_refused]
        if any(c.estimate is not None for c in cells) or not refused:
            return None
        return refused[0]

    @property
    def exit_status(self) -> ExitStatus:
        """FAILED only where nothing compiled at all: a config that does not fit is what fit reports;
        INTERRUPTED where Ctrl-C left the matrix partial."""
        if self.partial:
            return ExitStatus.INTERRUPTED
        compiled = any(c.verdict != NO_COMPILE for k in self.kernels for row in k.cells for c in row)
        return ExitStatus.SUCCESS if compiled else ExitStatus.FAILED
