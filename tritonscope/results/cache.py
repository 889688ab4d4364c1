"""`cache list`: the kernels in a Triton cache folder (or a `trace` capture)."""

from __future__ import annotations

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
