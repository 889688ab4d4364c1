"""The pass pipeline of one compilation, read from Triton's pass-by-pass IR dumps.

Each MLIR pass gets the IR before it (its snapshot) and after it (the next snapshot, or
the final module for the last pass); whether it changed the IR, and by how many lines, is
measured on normalized text (locations and renaming noise removed, as in `diff`).
"""

from __future__ import annotations

import difflib
import functools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from ..core.errors import UsageError
from ..core.stages import Stage
from ..parsers import pass_dump
from . import normalize


@dataclass(frozen=True)
class PassRecord:
    index: int  # 1-based, in the order the passes ran
    name: str  # the pass's argument: tritongpu-coalesce
    class_name: str  # TritonGPUCoalesce
    level: str  # the IR it works on: TTIR, TTGIR, LLVM dialect
    occurrence: int  # which run of a pass that runs several times (canonicalize, cse)
    occurrences: int
    changed: bool | None  # None when the IR after it is unknown
    added: int
    removed: int
    substeps: tuple[tuple[str, str], ...]  # (name, IR) dumped inside the pass
    before: str
    after: str | None

    @property
    def label(self) -> str:
        return f"{self.name}#{self.occurrence}" if self.occurrences > 1 else self.name

    def diff(self) -> list[str]:
        if self.after is None:
            return []
        return list(
            difflib.unified_diff(
                normalized_ir(self.before),
                normalized_ir(self.after),
                f"before {self.label}",
                f"after {self.label}",
                lineterm="",
            )
        )


@dataclass(frozen=True)
class LlvmPassRecord:
    index: int
    name: str
    scope: str  # [module] or a function
    changed: bool
    added: int
    removed: int


def build(mlir_dump: str) -> list[PassRecord]:
    snapshots, final = pass_dump.parse_mlir(mlir_dump)
    counts = Counter(s.argument for s in snapshots)
    seen: Counter[str] = Counter()
    texts = [s.text for s in snapshots] + ([final] if final is not None else [])
    # The slow part, once per distinct snapshot (most passes change nothing).
    by_text = {text: normalized_ir(text) for text in dict.fromkeys(texts)}
    normalized = [by_text[text] for text in texts]
    records = []
    for index, snapshot in enumerate(snapshots):
        seen[snapshot.argument] += 1
        after = texts[index + 1] if index + 1 < len(texts) else None
        changed, added, removed = None, 0, 0
        if after is not None:
            changed = normalized[index] != normalized[index + 1]
            if changed:
                added, removed = _line_changes(normalized[index], normalized[index + 1])
        records.append(
            PassRecord(
                index=index + 1,
                name=snapshot.argument or snapshot.class_name,
                class_name=snapshot.class_name,
                level=level_of(snapshot.text),
                occurrence=seen[snapshot.argument],
                occurrences=counts[snapshot.argument],
                changed=changed,
                added=added,
                removed=removed,
                substeps=tuple(snapshot.substeps),
                before=snapshot.text,
                after=after,
            )
        )
    return records


def build_llvm(llvm_dump: str) -> list[LlvmPassRecord]:
    last_by_scope: dict[str, str] = {}
    records = []
    for index, snapshot in enumerate(pass_dump.parse_llvm(llvm_dump), start=1):
        previous = last_by_scope.get(snapshot.scope)
        if snapshot.text is None or previous is None:
            changed, added, removed = snapshot.text is not None and previous is not None, 0, 0
        else:
            added, removed = _line_changes(previous.splitlines(), snapshot.text.splitlines())
            changed = bool(added or removed)
        if snapshot.text is not None:
            last_by_scope[snapshot.scope] = snapshot.text
        records.append(LlvmPassRecord(index, snapshot.pass_name, snapshot.scope, changed, added, removed))
    return records


def level_of(ir: str) -> str:
    if "llvm.func" in ir:
        return "LLVM dialect"
    if '"ttg.num-warps"' in ir or "ttg.num-warps" in ir:
        return "TTGIR"
    return "TTIR"


def select(records: list[PassRecord], wanted: str) -> list[PassRecord]:
    """Passes named by --show: an index (31), a name or class name (every run), or NAME#K (the K-th run)."""
    wanted = wanted.strip()
    if wanted.isdigit():
        index = int(wanted)
        if not 1 <= index <= len(records):
            raise UsageError(f"--show {index}: there are {len(records)} passes, numbered 1 to {len(records)}")
        return [records[index - 1]]
    name, _, occurrence = wanted.partition("#")
    found = [r for r in records if name.lower() in (r.name.lower(), r.class_name.lower())]
    if occurrence:
        found = [r for r in found if str(r.occurrence) == occurrence]
    if not found:
        names = sorted({r.name for r in records})
        close = difflib.get_close_matches(name, names, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise UsageError(
            f"--show {wanted}: no such pass in this pipeline.{hint}", hint="the table without --show lists every pass"
        )
    return found


def side_by_side(record: PassRecord) -> tuple[tuple[str, str | None, str | None], ...]:
    """A pass's IR before and after it, normalized, as side-by-side rows (diffing.StageDiff.rows)."""
    from .diffing import StageDiff

    diff = StageDiff(
        Stage.TTGIR, record.index - 1, record.index, normalized_ir(record.before), normalized_ir(record.after or "")
    )
    return tuple(diff.rows())


def normalized_ir(ir: str) -> tuple[str, ...]:
    """MLIR text with locations and renaming noise removed, as compared between snapshots."""
    return normalize.comparable(Stage.TTGIR, ir)  # MLIR rules serve TTIR, TTGIR and the LLVM dialect


def _line_changes(old: list[str], new: list[str]) -> tuple[int, int]:
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed


@dataclass(frozen=True)
class Divergence:
    """Where two pipelines (two Triton releases, or two variants) first part ways.

    kind: "input" when the IR given to the first pass already differs (the front end differs),
    "changed" when a pass both ran gave different output from the same input, "only" when passes
    that only one of them runs (or that each runs in place of the other's) leave different IR: then
    `first` and `second` are the first of those passes, in each, that changed the IR, or None.
    "none" when every output matches.
    """

    kind: Literal["input", "changed", "only", "none"]
    first: PassRecord | None = None
    second: PassRecord | None = None


def first_divergence(first: list[PassRecord], second: list[PassRecord]) -> Divergence:
    """The first pass whose output differs. The pipelines are aligned by pass name, and compared
    where both ran the same pass: passes one release runs in place of the other's are judged by
    the IR they leave for the next pass both run."""
    if not first or not second:
        return Divergence("none")
    if comparable_across(first[0].before) != comparable_across(second[0].before):
        return Divergence("input", first[0], second[0])
    matcher = difflib.SequenceMatcher(a=[r.name for r in first], b=[r.name for r in second], autojunk=False)
    block = ((0, 0), (0, 0))  # the passes run by one release only since the last pass both ran
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            block = ((i1, i2), (j1, j2))
            continue
        for a, b in zip(first[i1:i2], second[j1:j2], strict=True):
            if a.after is None or b.after is None or comparable_across(a.after) == comparable_across(b.after):
                block = ((0, 0), (0, 0))
                continue
            if comparable_across(a.before) == comparable_across(b.before):
                return Divergence("changed", a, b)
            return _only(first, second, block)
    ends = (first[-1].after, second[-1].after)
    if None not in ends and comparable_across(ends[0]) != comparable_across(ends[1]):
        return _only(first, second, block)
    return Divergence("none")


def _only(first: list[PassRecord], second: list[PassRecord], block) -> Divergence:
    (i1, i2), (j1, j2) = block
    changing = (
        next((r for r in records[lo:hi] if r.changed), None) for records, lo, hi in ((first, i1, i2), (second, j1, j2))
    )
    return Divergence("only", *changing)


def across_diff(first: str | None, second: str | None, labels: tuple[str, str]) -> list[str]:
    """The unified diff between two pipelines' IR, compared as `comparable_across` compares it."""
    a, b = (comparable_across(text or "") for text in (first, second))
    return list(difflib.unified_diff(a, b, labels[0], labels[1], lineterm=""))


_SYMBOL = re.compile(r'@(?:"[^"]*"|[\w.$-]+)')
# Attributes one release writes and another does not, whatever the kernel: 3.9's `ttng.two-ctas` on
# every module and `allocation.size` beside each `allocation.offset` (the size is the buffer's, as before)
_ONE_RELEASES = r'(?:"?ttng\.two-ctas"?\s*=\s*\w+|allocation\.size\s*=\s*\d+\s*:\s*i\d+)'
_RELEASE_ONLY_ATTRIBUTES = re.compile(rf",\s*{_ONE_RELEASES}|{_ONE_RELEASES}\s*,?\s*")


@functools.lru_cache(maxsize=512)
def comparable_across(ir: str) -> tuple[str, ...]:
    """IR compared between releases: besides diff's normalization, helper functions' symbols are
    numbered (each release mangles their names its own way) and attributes every module of one
    release carries are dropped."""
    symbols: dict[str, str] = {}

    def number(match: re.Match) -> str:
        return symbols.setdefault(match[0], f"@f{len(symbols)}")

    lines = (_RELEASE_ONLY_ATTRIBUTES.sub("", line) for line in normalized_ir(ir))
    return tuple(_SYMBOL.sub(number, line) for line in lines)
