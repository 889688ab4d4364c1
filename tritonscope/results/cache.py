"""`cache list`: the kernels in a Triton cache folder (or a `trace` capture)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ..core.targets import named
from .base import Result


@dataclass(frozen=True)
class CacheEntry:
    folder: Path
    name: str
    metadata: dict
    stages: tuple[str, ...]  # artifact kinds present: ttir, ttgir, llir, ptx, cubin / amdgcn, hsaco
    size: int
    modified: float
    specialization: dict | None = None  # from a capture's kernels.jsonl
    launches: tuple[dict, ...] = ()  # from a capture's launches.jsonl, in the order they ran

    @property
    def target(self) -> str:
        """Our name for the entry's target (sm90, gfx942), or Triton's own when we have none."""
        target = self.metadata.get("target")
        target = target if isinstance(target, dict) else {}
        arch = target.get("arch")
        name = f"sm{arch}" if target.get("backend") == "cuda" else str(arch)
        return name if named(name) is not None else f"{target.get('backend')}:{arch}"

    def path(self, kind: str) -> Path:
        return self.folder / f"{self.name}.{kind}"


@dataclass(frozen=True)
class CacheListing(Result):
    kind: ClassVar[str] = "cache list"
    folder: Path
    entries: tuple[CacheEntry, ...]
    skipped: tuple[str, ...] = ()  # one line per entry that could not be read
    autotune: tuple[dict, ...] = ()  # trace --target: each autotuned kernel's candidates, choice and rule
    simulated: dict | None = None  # trace --target: the simulated GPU the capture was made against
