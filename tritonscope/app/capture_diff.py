"""`diff DIR1/ DIR2/` (two captures) and `diff DIR/ --vary triton=A,B` (one capture, recompiled
under each release): every kernel paired with its counterpart and its figures compared.

Two captures are read, never compiled (capture_summaries.py). Under --vary triton=, each captured
compile is compiled again from its source with its recorded specialization, every release in
workers of its own interpreter, in parallel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..analysis.capture_pairs import KernelFigures, KernelPair, compare, pair
from ..analysis.diffing import StageDiff, normalized
from ..captures.compiled import entry_compilation
from ..captures.entries import CacheEntry
from ..captures.folder import Capture, open_capture
from ..captures.rebuild import entry_request
from ..core.errors import TritonscopeError, UsageError
from ..core.model import Compilation, VariantRequest
from ..core.stages import Stage
from ..isolate import pool
from ..results.capture_diff import CaptureDiffResult, Comparison
from ..results.diff import DiffResult, VariantOutcome
from . import kernel_figures
from .capture_summaries import summaries
from .walk import releases


def diff_captures(before: Path, after: Path, jobs: int, timeout: float) -> CaptureDiffResult:
    """Two captures side by side: one row per kernel compile, nothing compiled."""
    sides = [open_capture(before), open_capture(after)]
    read = summaries(sides, jobs, timeout)
    figures = [[read[(s.folder, e.metadata["hash"])] for e in s.entries] for s in sides]
    pairs = tuple(pair(figures[0], figures[1]))
    return CaptureDiffResult((Comparison(str(before), str(after), pairs),), tuple(_notes(sides)))


def _notes(sides: list[Capture]) -> list[str]:
    """Differences between the captures that make their kernels differ for a reason of their own."""
    notes = []
    targets = [s.targets for s in sides]
    if targets[0] != targets[1]:
        notes.append(
            f"the captures were made for different targets ({', '.join(targets[0])} and {', '.join(targets[1])}): "
            "kernels are paired across them, and their figures differ for that reason too"
        )
    made = [s.releases for s in sides]
    if made[0] != made[1]:
        notes.append(
            f"the captures were made with different Triton releases: {', '.join(made[0])} and {', '.join(made[1])}"
        )
    return notes


def kernel_diff(before: Path, after: Path, name: str, stages: tuple[Stage, ...] | None) -> DiffResult:
    """`-k NAME`: each compile of NAME beside its counterpart, their stages diffed as `diff` diffs variants."""
    sides = [open_capture(before), open_capture(after)]
    chosen = [[e for e in s.entries if e.name == name] for s in sides]
    if not any(chosen):
        names = sorted({e.name for s in sides for e in s.entries})
        raise UsageError(f"-k {name}: no kernel of that name in either capture. Kernels: {', '.join(names)}")
    keyed = [[_light_keys(s.folder, e) for e in found] for s, found in zip(sides, chosen, strict=True)]
    outcomes: list[VariantOutcome] = []
    diffs: list[StageDiff] = []
    for p in pair(keyed[0], keyed[1]):
        read = [_read(side, k) for side, k in zip(sides, (p.before, p.after), strict=True) if k is not None]
        first = len(outcomes)
        outcomes += [VariantOutcome(label, VariantRequest(file=c.variant.file, kernel=name), c) for label, c in read]
        if len(read) == 2:
            diffs += _stage_diffs(read[0][1], read[1][1], first, stages)
    return DiffResult(tuple(outcomes), tuple(diffs))


def _read(side: Capture, k: KernelFigures) -> tuple[dict[str, str], Compilation]:
    """A compile read whole (its SASS with line information), and its label in the diff."""
    entry = next(e for e in side.entries if e.metadata["hash"] == k.hash)
    compilation = entry_compilation(entry, f"{side.folder}/:{k.name}")
    return {"capture": str(side.folder), "compile": k.hash[:8]}, compilation


def _stage_diffs(a: Compilation, b: Compilation, first: int, stages: tuple[Stage, ...] | None) -> list[StageDiff]:
    shown = stages or (Stage.TTGIR, a.variant.target_info.vendor.machine_code)
    return [
        StageDiff(stage, first, first + 1, normalized(a, stage), normalized(b, stage))
        for stage in shown
        if stage in a.stages and stage in b.stages
    ]


def _light_keys(folder: Path, entry: CacheEntry) -> KernelFigures:
    """An entry's pairing keys alone (no figures): what -k pairs its compiles by."""
    return KernelFigures(
        target="", triton_version="", figures={}, mix={}, findings=(), code="", **kernel_figures.keys(folder, entry)
    )


def vary_releases(
    folder: Path, wanted: tuple[str, ...], jobs: int, timeout: float, on_done: Callable | None = None
) -> CaptureDiffResult:
    """Every captured compile compiled again under each release; each release against the first."""
    from .walk.prepare import compile_request  # the tasks' function: its module imports Triton, so only here

    capture = open_capture(folder)
    named = [releases.checked(r) for r in wanted]
    tasks, rows = [], []
    for entry in capture.entries:
        reference = f"{folder}/:{entry.name}"
        try:
            request = entry_request(entry, reference)
        except TritonscopeError as exc:
            raise UsageError(
                f"--vary triton=: {exc.message}", hint="--vary recompiles from the source the capture names"
            ) from None
        for release in named:
            tasks.append(releases.task(compile_request, (replace(request, triton=release),), release, (request.file,)))
            rows.append((entry, release))
    with pool(jobs=min(jobs, len(tasks)), timeout=timeout) as workers:
        outcomes = workers.run(tasks, on_done=on_done and (lambda i, o: on_done(o)))
    return _release_result(capture, named, rows, outcomes)


def _release_result(capture: Capture, named: list, rows: list, outcomes: list) -> CaptureDiffResult:
    done: dict[tuple[str, object], KernelFigures] = {}
    failures = []
    for (entry, release), outcome in zip(rows, outcomes, strict=True):
        if not outcome.ok:
            failures.append(f"{entry.name} ({entry.metadata['hash'][:8]}) under Triton {release}: {outcome.error}")
            continue
        c = outcome.value
        keys = {**kernel_figures.keys(capture.folder, entry), "hash": str(c.metadata.get("hash"))}
        done[(entry.metadata["hash"], release)] = KernelFigures(**kernel_figures.of(c), **keys)
    comparisons = []
    for release in named[1:]:
        pairs = []
        for entry in capture.entries:
            a, b = done.get((entry.metadata["hash"], named[0])), done.get((entry.metadata["hash"], release))
            if a and b:
                pairs.append(compare(a, b))
            elif a or b:
                pairs.append(compare_missing(a, b))
        comparisons.append(Comparison(f"triton={named[0]}", f"triton={release}", tuple(pairs)))
    return CaptureDiffResult(tuple(comparisons), (), tuple(failures))


def compare_missing(a: KernelFigures | None, b: KernelFigures | None) -> KernelPair:
    """A compile that failed under one release: removed (or added) on that side, as the failure says."""
    kept = a or b
    assert kept is not None  # a pair of two missing compiles is never made
    return KernelPair(kept.name, "removed" if a else "added", a, b, "did not compile under the other release")
