"""`cache list`: the kernels in a Triton cache folder (or a `trace` capture)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ..captures.entries import CacheEntry
from .base import Result


@dataclass(frozen=True)
class CacheListing(Result):
    kind: ClassVar[str] = "cache list"
    folder: Path
    entries: tuple[CacheEntry, ...]
    skipped: tuple[str, ...] = ()  # one line per entry that could not be read
    autotune: tuple[dict, ...] = ()  # trace --target: each autotuned kernel's candidates, choice and rule
    simulated: dict | None = None  # trace --target: the simulated GPU the capture was made against

    def picked_names(self) -> list[str]:
        """Each entry's name as `DIR/:NAME` picks it: `NAME@HASH8` where its name was compiled more
        than once (the first 8 characters of Triton's hash), else the name."""
        names = Counter(e.name for e in self.entries)
        return [_with_hash(e) if names[e.name] > 1 else e.name for e in self.entries]


def _with_hash(entry: CacheEntry) -> str:
    digest = str(entry.metadata.get("hash") or "")[:8]
    return f"{entry.name}@{digest}" if digest else entry.name
