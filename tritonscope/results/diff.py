"""`diff`: variants compiled side by side, and the stage diffs between them."""

from __future__ import annotations

from dataclasses import dataclass, field
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
    # Each diff's text, made once with the result (renderers only draw it): unified, headed by the
    # variants' names, and side by side as (tag, old line, new line) rows.
    unified: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)
    side_by_side: tuple[tuple[tuple[str, str | None, str | None], ...], ...] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        names = [o.describe() for o in self.outcomes]
        unified = tuple(tuple(d.unified(names[d.old], names[d.new])) for d in self.diffs)
        object.__setattr__(self, "unified", unified)
        object.__setattr__(self, "side_by_side", tuple(tuple(d.rows()) for d in self.diffs))

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outcomes)

    @property
    def exit_status(self) -> ExitStatus:
        return ExitStatus.SUCCESS if self.ok else ExitStatus.FAILED
