"""`check`: kernels held to their budgets and baselines."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..analysis.findings import Finding
from ..core.model import CheckEntry, Compilation
from ..core.quantities import size_exact
from ..core.status import ExitStatus
from .base import Result

FIT = "fit "  # a Broken of `check DIR/ --fit`: its figure is `fit TARGET`, its limit the verdict
LAUNCH = "launch"  # a Broken of a block no GPU of the target launches: its limit says why


@dataclass(frozen=True)
class Broken:
    figure: str
    value: float | None
    limit: str  # the budget (`<= 128`), the baseline (`baseline 26`), or --fit's verdict (`does not fit: ...`)
    finding: str = ""  # the finding behind it: `line 21: ...`
    unit: str = ""  # the value's (`%` of occupancy, ` B` of a size), said after it as the limit says it

    @property
    def is_fit(self) -> bool:
        return self.figure.startswith(FIT)

    @property
    def value_said(self) -> str:
        """The value as the limit says it, in every view: `148,480 B (145 KiB)`, `56.2%`, `none` (the
        JUnit file said `148480` beside a limit of `99,328 B (97 KiB)`: h24a)."""
        if self.value is None:
            return "none"
        if self.unit == " B":
            return size_exact(int(self.value))
        return f"{self.value:g}{self.unit}"

    @property
    def is_verdict(self) -> bool:
        """Said as `figure: verdict`, not held to a budget: --fit's, or a launch that fails."""
        return self.is_fit or self.figure == LAUNCH


@dataclass(frozen=True)
class EntryOutcome:
    entry: CheckEntry
    compilation: Compilation | None = None
    figures: dict[str, Any] = field(default_factory=dict)
    broken: tuple[Broken, ...] = ()
    findings: tuple[Finding, ...] = ()
    error: str | None = None
    exit_code: int = 0  # the error's: 1 the kernel does not compile, 2 bad input
    notes: tuple[str, ...] = ()  # the findings': what was missing, the kinds therefore not looked for
    baseline_updated: bool = False  # --update-baseline: its figures are the baseline now, not held to it
    fit_targets: tuple[str, ...] = ()  # check DIR/ --fit: the targets its launched compile was held to
    why: str | None = None  # a compile after a mark (app/compile_gate.py): its cause and launch, broken or not

    @property
    def ok(self) -> bool:
        return self.error is None and not self.broken


@dataclass(frozen=True)
class CheckResult(Result):
    kind: ClassVar[str] = "check"
    outcomes: tuple[EntryOutcome, ...]
    notes: tuple[str, ...] = ()  # a capture's compiles without a counterpart in the baseline; entries' notes

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outcomes)

    @property
    def exit_status(self) -> ExitStatus:
        """SUCCESS every budget holds; FAILED one broke or a kernel does not compile; USAGE an entry is bad input."""
        if any(o.exit_code == ExitStatus.USAGE for o in self.outcomes):
            return ExitStatus.USAGE
        return ExitStatus.SUCCESS if self.ok else ExitStatus.FAILED

    @property
    def exit_code(self) -> int:
        """The JSON document's `exit_code` (docs/json-schema.md): the status as a number."""
        return int(self.exit_status)
