"""`explore`: what the explorer shows of one variant, made in its child process with the variant.

One compile explained (`ExplainResult`: the stages, the line map, per-line cost and live registers,
the findings), and beside it, made once in the child, what the panes read: each stage's lines as
the views show them, and for each line of the kernel's file the stage lines that came from it; the
same lines as `diff` compares them are made where first asked for (the explorer's diff). The
explorer only draws; the line map's and the diff's logic stay in analysis/, reached through the
methods here.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from ..analysis import diffing, normalize
from ..analysis.cost import source_texts
from ..analysis.passes import PassRecord
from ..core.model import Artifacts, Compilation, KernelSpec, VariantRequest
from ..core.stages import STAGES, Stage
from ..core.status import ExitStatus
from .base import Result
from .explain import ExplainResult

Listing = tuple[tuple[int, str], ...]  # (line number in the stage, text), as normalize.shown gives


@dataclass(frozen=True)
class ExploreResult(Result):
    kind: ClassVar[str] = "explore"
    request: VariantRequest  # as the explorer asked for it
    explained: ExplainResult
    releases: tuple[str, ...] = ()  # the Triton releases installed for --triton (the running one first)
    helpers: tuple[str, ...] = ()  # the user's own files the kernel file imports: their saves compile again too
    # A compile whose machine code is still to be read (its SASS: nvdisasm), shown with Triton's stages
    # first; app/explore.py's `with_machine_code` reads it. None once read (or for AMD, a cached kernel).
    unread: Artifacts | None = field(default=None, repr=False, compare=False)
    # Each SASS instruction's control code as `dump --control` writes it, by its line in the SASS listing
    # (analysis/scoreboards.py); None where there are none: AMD, or the SASS not read yet.
    controls: dict[int, str] | None = field(default=None, repr=False, compare=False)
    # Triton's stages made so far, shown while it makes the next (`analysis.artifacts.stages_so_far`):
    # no resources, no machine code, nothing explained yet. The compile's own result follows them.
    early: bool = field(default=False, compare=False)
    # Early stages that are not yet all those before the binary: Triton still makes the next ones.
    partial: bool = field(default=False, compare=False)
    # Made once, with the result: each stage as the panes show it (`_shown`), the kernel
    # file's lines, and kernel-file line -> stage -> its lines. (`comparable`, below, when first asked.)
    listings: dict[Stage, Listing] = field(init=False, repr=False, compare=False)
    file_lines: dict[int, str] = field(init=False, repr=False, compare=False)
    linked: dict[int, dict[Stage, tuple[int, ...]]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        c = self.compilation
        stages = [s for s in c.stages if s is not Stage.SOURCE]
        shown = {s: _shown(s, c.stages[s]) for s in stages}
        object.__setattr__(self, "listings", shown)
        object.__setattr__(self, "file_lines", source_texts(c))
        object.__setattr__(self, "linked", _linked(c, stages))

    @functools.cached_property
    def comparable(self) -> dict[Stage, tuple[str, ...]]:
        """Each stage's lines as diff compares them (normalized text). Made when first asked for, by the
        explorer's diff once the variant is painted, not on the variant's way to the screen (10-40 ms
        in the child of a variant compiling), then kept with the result."""
        c = self.compilation
        return {s: normalize.comparable(s, c.stages[s]) for s in self.listings}

    @property
    def compilation(self) -> Compilation:
        return self.explained.compilation

    @property
    def stages(self) -> tuple[Stage, ...]:
        """The stages after the source, in pipeline order."""
        return tuple(self.listings)

    def python_lines(self, stage: Stage, line: int) -> tuple[int, ...]:
        """The kernel-file lines a stage's line came from (inlined call sites included), innermost first."""
        c = self.compilation
        sources = c.line_map.get(stage, {}).get(line, ())
        return tuple(dict.fromkeys(n for file, n in sources if file == c.kernel.file))

    def stage_lines(self, stage: Stage, python_line: int) -> tuple[int, ...]:
        """The lines of `stage` that came from a line of the kernel's file, as `dump --line` finds them."""
        return self.linked.get(python_line, {}).get(stage, ())

    def changed_lines(self, previous: ExploreResult) -> dict[Stage, frozenset[int]]:
        """Each stage's lines that differ from `previous`'s (what `diff` shows: normalized text), by
        their numbers in this result's stages; a stage `previous` lacks is left out."""
        changes = {}
        for stage, lines in self.comparable.items():
            if stage in previous.comparable:
                diff = diffing.StageDiff(stage, 0, 1, previous.comparable[stage], lines)
                listing = self.listings[stage]
                changes[stage] = frozenset(listing[i][0] for i in diff.new_changes())
        return changes


@functools.lru_cache(maxsize=8)
def _shown(stage: Stage, text: str) -> Listing:
    """A stage as the panes show it (location noise dropped, `normalize.compacted`): made once per text
    in the explorer's child, whose results of one compile's stages so far (made one after the
    other: early_stages.py) each hold the ones before."""
    return tuple(normalize.compacted(stage, normalize.shown(stage, text, keep_loc=False)))


def _linked(c: Compilation, stages: Sequence[Stage]) -> dict[int, dict[Stage, tuple[int, ...]]]:
    found: dict[int, dict[Stage, list[int]]] = {}
    for stage in stages:
        for number, sources in c.line_map.get(stage, {}).items():
            for file, line in dict.fromkeys(sources):
                if file == c.kernel.file:
                    found.setdefault(line, {}).setdefault(stage, []).append(number)
    return {
        line: {stage: tuple(sorted(lines)) for stage, lines in by_stage.items()} for line, by_stage in found.items()
    }


@dataclass(frozen=True)
class CompileFailure(Result):
    """The explorer's compile that failed: the message as the command line says it, and the kernel
    file's line it names (a front-end error), where it names one."""

    kind: ClassVar[str] = "explore-failure"
    request: VariantRequest
    message: str
    hint: str | None = None
    where: tuple[str, int] | None = None
    kernel: KernelSpec | None = None  # the kernel, where its values were missing: the variant screen asks them

    @property
    def exit_status(self) -> int:
        return ExitStatus.FAILED


@dataclass(frozen=True)
class IRSide:
    """One side of a pass (the IR before it, or after): its lines as shown, where each came from in
    the kernel's file, and which differ from the other side."""

    listing: Listing
    sources: dict[int, tuple[int, ...]]  # line number -> kernel-file lines, innermost first
    linked: dict[int, tuple[int, ...]]  # kernel-file line -> line numbers
    changed: frozenset[int]


@dataclass(frozen=True)
class PassStep:
    """What one pass did, for the explorer's pass view: the IR before and after it, linked to the
    kernel's lines, the lines it changed marked on each side (`passes --show`'s diff)."""

    record: PassRecord
    before: IRSide
    after: IRSide | None

    @classmethod
    def of(cls, record: PassRecord, kernel_file: str) -> PassStep:
        old = normalize.comparable(Stage.TTGIR, record.before)  # MLIR's rules serve TTIR, TTGIR and LLVM
        new = normalize.comparable(Stage.TTGIR, record.after) if record.after is not None else None
        diff = diffing.StageDiff(Stage.TTGIR, 0, 1, old, new or old)
        before = _side(record.before, kernel_file, diff.old_changes() if new is not None else [])
        after = _side(record.after, kernel_file, diff.new_changes()) if record.after is not None else None
        return cls(record, before, after)


def _side(ir: str, kernel_file: str, changed: list[int]) -> IRSide:
    listing = tuple(normalize.shown(Stage.TTGIR, ir, keep_loc=False))
    located = STAGES[Stage.TTGIR].locations
    sources = {
        n: tuple(dict.fromkeys(line for file, line in found if file == kernel_file))
        for n, found in (located(ir) if located is not None else {}).items()
    }
    linked: dict[int, list[int]] = {}
    for number, lines in sources.items():
        for line in lines:
            linked.setdefault(line, []).append(number)
    return IRSide(listing, sources, {k: tuple(v) for k, v in linked.items()}, frozenset(listing[i][0] for i in changed))
