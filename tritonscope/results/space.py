"""The result of `diff --space`: an explored autotune space."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..core.status import ExitStatus
from .base import Result


@dataclass(frozen=True)
class SpacePoint:
    """One config of an explored space: its axis values and static figures (or why it has none)."""

    label: dict[str, str]
    figures: dict[str, Any] | None = None  # registers, spills, shared, occupancy, instructions, findings
    cause: str | None = None  # why it failed or exceeds a limit: shared memory, registers, timeout, other
    error: str | None = None


@dataclass(frozen=True)
class SpaceResult(Result):
    """`diff --space`: every config's figures, the failures by cause, the Pareto set and the top N."""

    kind: ClassVar[str] = "space"
    axes: tuple[str, ...]
    points: tuple[SpacePoint, ...]
    pareto: tuple[int, ...]  # indices into points, in order
    top: tuple[int, ...]  # indices into points, best first by `sort`
    sort: str
    static: bool = True  # figures read off the compile; no GPU ran anything

    @property
    def failures(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for point in self.points:
            if point.cause:
                counts[point.cause] = counts.get(point.cause, 0) + 1
        return counts

    @property
    def ok(self) -> bool:
        return any(p.cause is None for p in self.points)

    @property
    def exit_status(self) -> ExitStatus:
        return ExitStatus.SUCCESS if self.ok else ExitStatus.FAILED
