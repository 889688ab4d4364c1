"""`diff DIR1/ DIR2/` and `diff DIR/ --vary triton=A,B`: whole captures side by side."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..analysis.capture_pairs import KernelPair, counts
from ..core.status import ExitStatus
from .base import Result


@dataclass(frozen=True)
class Comparison:
    """One side against another: two captures, or one capture compiled under two releases."""

    before: str  # the side's label: its folder, or `triton=3.6.0`
    after: str
    pairs: tuple[KernelPair, ...]

    @property
    def counts(self) -> dict[str, int]:
        return counts(self.pairs)


@dataclass(frozen=True)
class CaptureDiffResult(Result):
    kind: ClassVar[str] = "capture diff"
    comparisons: tuple[Comparison, ...]
    notes: tuple[str, ...] = ()  # warnings: targets or releases that differ between the sides
    failures: tuple[str, ...] = ()  # --vary triton=: compiles that failed, one line each

    @property
    def exit_status(self) -> ExitStatus:
        return ExitStatus.FAILED if self.failures else ExitStatus.SUCCESS
