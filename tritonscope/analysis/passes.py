"""The pass pipeline of one compilation, read from Triton's pass-by-pass IR dumps.

Each MLIR pass gets the IR before it (its snapshot) and after it (the next snapshot, or
the final module for the last pass); whether it changed the IR, and by how many lines, is
measured on normalized text (locations and renaming noise removed, as in `diff`).
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass

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
    normalized = [normalized_ir(text) for text in texts]  # once per snapshot: the slow part
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
