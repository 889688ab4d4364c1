"""Diffs of two compilations' stages, on normalized text (see normalize.py)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from ..core.model import Compilation
from ..core.stages import Stage
from . import normalize


@dataclass(frozen=True)
class StageDiff:
    stage: Stage
    old: int  # variant indexes
    new: int
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return self.old_lines != self.new_lines

    def unified(self, old_name: str, new_name: str, context: int = 3) -> list[str]:
        return list(difflib.unified_diff(self.old_lines, self.new_lines, old_name, new_name, n=context, lineterm=""))

    def new_changes(self) -> list[int]:
        """The indexes of `new_lines` that differ from the old: added, or changed in place."""
        return [j for tag, _, _, j1, j2 in self._opcodes() if tag in ("replace", "insert") for j in range(j1, j2)]

    def old_changes(self) -> list[int]:
        """The indexes of `old_lines` the new lacks: removed, or changed in place."""
        return [i for tag, i1, i2, _, _ in self._opcodes() if tag in ("replace", "delete") for i in range(i1, i2)]

    def _opcodes(self) -> list:
        return difflib.SequenceMatcher(a=self.old_lines, b=self.new_lines, autojunk=False).get_opcodes()

    def rows(self, context: int = 3) -> list[tuple[str, str | None, str | None]]:
        """Side-by-side rows: (tag, old line, new line), tag one of equal, replace, delete, insert, skip."""
        matcher = difflib.SequenceMatcher(a=self.old_lines, b=self.new_lines, autojunk=False)
        rows: list[tuple[str, str | None, str | None]] = []
        for group in matcher.get_grouped_opcodes(context):
            if rows:
                rows.append(("skip", None, None))
            for tag, i1, i2, j1, j2 in group:
                old, new = self.old_lines[i1:i2], self.new_lines[j1:j2]
                for k in range(max(len(old), len(new))):
                    rows.append((tag, old[k] if k < len(old) else None, new[k] if k < len(new) else None))
        return rows


def normalized(c: Compilation, stage: Stage) -> tuple[str, ...]:
    return normalize.comparable(stage, c.stages[stage])


def diff(compilations: list[Compilation | None], stage: Stage, against: str) -> list[StageDiff]:
    """Each compiled variant against the first one (or the previous one), for one stage."""
    present = [i for i, c in enumerate(compilations) if c is not None and stage in c.stages]
    pairs = (
        [(present[0], i) for i in present[1:]] if against == "first" else list(zip(present, present[1:], strict=False))
    )
    texts = {i: normalized(compilations[i], stage) for i in present}  # each once: the first is in every pair
    return [StageDiff(stage, a, b, texts[a], texts[b]) for a, b in pairs]
