"""`diff`: variants compiled side by side, and the stage diffs between them."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from ..analysis.diffing import StageDiff
from ..core.model import Compilation, VariantRequest
from ..core.status import ExitStatus
from .base import Result


@dataclass(frozen=True)
class VariantOutcome:
    """One variant of a sweep: its request, and the compilation or why there is none."""

    label: dict[str, str]  # the varied names and this variant's values, as typed
    request: VariantRequest
    compilation: Compilation | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.compilation is not None

    def describe(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.label.items())


@dataclass(frozen=True)
class DiffResult(Result):
    kind: ClassVar[str] = "diff"
    outcomes: tuple[VariantOutcome, ...]
    diffs: tuple[StageDiff, ...]
    missing: tuple[str, ...] = ()  # stages no variant produced

    # Each diff's text, made once with the first renderer that draws it (a view draws one of the two):
    # unified, headed by the variants' names, and side by side as (tag, old line, new line) rows.
    @cached_property
    def unified(self) -> tuple[tuple[str, ...], ...]:
        names = [o.describe() for o in self.outcomes]
        return tuple(tuple(d.unified(names[d.old], names[d.new])) for d in self.diffs)

    @cached_property
    def side_by_side(self) -> tuple[tuple[tuple[str, str | None, str | None], ...], ...]:
        return tuple(tuple(d.rows()) for d in self.diffs)

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outcomes)

    @property
    def exit_status(self) -> ExitStatus:
        return ExitStatus.SUCCESS if self.ok else ExitStatus.FAILED
