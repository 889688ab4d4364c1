"""`explain` and `profile`: what each Python line cost, statically and as measured by ncu."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..analysis.compile_time import LineGrowth
from ..analysis.cost import LineCost
from ..analysis.findings import Finding
from ..analysis.launch_time import LaunchEstimate
from ..analysis.line_time import TimeEstimate
from ..analysis.measured import Measured
from ..core.model import Compilation
from ..core.stages import Stage
from .base import Result


@dataclass(frozen=True)
class ExplainResult(Result):
    kind: ClassVar[str] = "explain"
    compilation: Compilation
    lines: tuple[LineCost, ...]  # each kernel-file line that produced machine code or a conversion
    findings: tuple[Finding, ...]
    live_registers: bool = False  # nvdisasm's register life ranges were read
    notes: tuple[str, ...] = ()
    growth: tuple[LineGrowth, ...] | None = None  # --compile-time: operations per line at each IR level
    time: TimeEstimate | None = None  # where the time goes per line (NVIDIA, with SASS)
    launch: LaunchEstimate | None = None  # the whole launch's time, for its grid
    launch_note: str | None = None  # why there is none, where there is a per-line estimate


@dataclass(frozen=True)
class ProfileResult(Result):
    kind: ClassVar[str] = "profile"
    kernel: str
    file: str  # the kernel's file
    command: tuple[str, ...]  # the program ncu ran: it launches the kernel once
    measured: Measured  # ncu's counters per Python line
    compilation: Compilation | None  # the binary that ran, read back from its Triton cache
    static: tuple[LineCost, ...] = ()  # explain's cost of each line of that binary
    notes: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()  # explain's findings on that binary: a stall read beside its cause
    time: TimeEstimate | None = None  # explain's estimate of where that binary's time goes, per line

    def findings_on(self, line: int) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if line == f.line or line in f.lines)


@dataclass(frozen=True)
class ReportResult(Result):
    """`report`: explain's result as one HTML page (so the page and `explain` agree), with the
    stages shown at first."""

    kind: ClassVar[str] = "report"
    explained: ExplainResult
    stages: tuple[Stage, ...]
