"""`passes`: the pass pipeline of one compile, or of two compared (`--vary`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..analysis.passes import Divergence, LlvmPassRecord, PassRecord
from ..core.model import Variant
from ..core.status import ExitStatus


@dataclass(frozen=True)
class PassesResult:
    kind: ClassVar[str] = "passes"
    variant: Variant
    records: tuple[PassRecord, ...]
    llvm_records: tuple[LlvmPassRecord, ...] | None = None
    selected: tuple[PassRecord, ...] | None = None  # the passes --show names
    triton_version: str = ""

    @property
    def exit_status(self) -> ExitStatus:
        return ExitStatus.SUCCESS


@dataclass(frozen=True)
class PassesComparison:
    """`passes --vary NAME=A,B`: two pipelines, and the first pass whose output differs."""

    kind: ClassVar[str] = "passes-compare"
    labels: tuple[str, str]  # each pipeline's variant, as varied: "triton=3.6.0"
    results: tuple[PassesResult, PassesResult]
    divergence: Divergence

    def only_in(self, which: int) -> list[str]:
        """The pass names one pipeline runs and the other never does."""
        others = {r.name for r in self.results[1 - which].records}
        return list(dict.fromkeys(r.name for r in self.results[which].records if r.name not in others))

    @property
    def exit_status(self) -> ExitStatus:
        return ExitStatus.SUCCESS
