"""`passes`: the pass pipeline of one compile, or of two compared (`--vary`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ..analysis.compile_time import CompileTiming
from ..analysis.passes import Divergence, LlvmPassRecord, PassRecord, across_diff
from ..core.model import Variant
from .base import Result


@dataclass(frozen=True)
class PassesResult(Result):
    kind: ClassVar[str] = "passes"
    variant: Variant
    records: tuple[PassRecord, ...]
    llvm_records: tuple[LlvmPassRecord, ...] | None = None
    selected: tuple[PassRecord, ...] | None = None  # the passes --show names
    triton_version: str = ""
    timing: CompileTiming | None = None  # --time: where the compile's time went
    # A changed pass's before and after side by side, by pass index: made by app/ for the HTML page
    # (`passes --html`: every changed pass) and a notebook's view (those --show names).
    side_by_side: dict[int, tuple[tuple[str, str | None, str | None], ...]] = field(default_factory=dict)
    # What each --show pass did, as a unified diff, by pass index: made once with the result.
    diffs: dict[int, tuple[str, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "diffs", {r.index: tuple(r.diff()) for r in self.selected or ()})


@dataclass(frozen=True)
class PassesComparison(Result):
    """`passes --vary NAME=A,B`: two pipelines, and the first pass whose output differs."""

    kind: ClassVar[str] = "passes-compare"
    labels: tuple[str, str]  # each pipeline's variant, as varied: "triton=3.6.0"
    results: tuple[PassesResult, PassesResult]
    divergence: Divergence
    # Made once with the result: how the two pipelines' IR differs where they part (the input to
    # the first pass, or the diverging passes' outputs), and what each diverging pass did.
    across: tuple[str, ...] = field(init=False, repr=False, compare=False)
    first_diff: tuple[str, ...] = field(init=False, repr=False, compare=False)
    second_diff: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        d = self.divergence
        across: list[str] = []
        if d.kind == "input" and d.first is not None and d.second is not None:
            across = across_diff(d.first.before, d.second.before, self.labels)
        elif d.first is not None and d.second is not None:
            across = across_diff(d.first.after, d.second.after, self.labels)
        object.__setattr__(self, "across", tuple(across))
        object.__setattr__(self, "first_diff", tuple(d.first.diff()) if d.first is not None else ())
        object.__setattr__(self, "second_diff", tuple(d.second.diff()) if d.second is not None else ())

    def only_in(self, which: int) -> list[str]:
        """The pass names one pipeline runs and the other never does."""
        others = {r.name for r in self.results[1 - which].records}
        return list(dict.fromkeys(r.name for r in self.results[which].records if r.name not in others))
