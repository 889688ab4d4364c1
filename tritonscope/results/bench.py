"""`bench`: a file's kernels timed on the GPU, or a captured kernel's launches replayed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..core.status import ExitStatus
from .base import Result


@dataclass(frozen=True)
class Peak:
    copy_gbps: float  # device-to-device copy, bytes read + written per second
    matmul_tflops: float  # a large fp16 torch.matmul


@dataclass(frozen=True)
class Measurement:
    size: int
    label: dict[str, str]
    error: float  # max |out - reference| / max |reference|
    correct: bool
    ms: float | None = None
    torch_ms: float | None = None
    gbps: float | None = None
    tflops: float | None = None
    registers: int | None = None
    spills: int | None = None
    occupancy: str | None = None
    failure: str | None = None  # why the launch itself failed (out of resources, ...)
    flops: int | None = None  # one launch's work, from the file's work hook
    bytes: int | None = None


@dataclass(frozen=True)
class LaunchTiming:
    number: int  # the recorded launch, from 1
    grid: tuple[int, ...]
    tensors: str  # the tensor arguments, short: f32[4096] f32[4096]
    ms: float
    bytes: int  # bytes the tensor arguments span, each counted once
    gbps: float
    assembly_matched: bool | None  # the PTX/AMDGCN hash equals the capture's; None for a file's kernel


@dataclass(frozen=True)
class BenchResult(Result):
    kind: ClassVar[str] = "bench"
    file: str
    peak: Peak
    results: tuple[Measurement, ...]

    @property
    def ok(self) -> bool:
        return all(r.correct for r in self.results)

    @property
    def exit_status(self) -> ExitStatus:
        return ExitStatus.SUCCESS if self.ok else ExitStatus.FAILED


@dataclass(frozen=True)
class ReplayResult(Result):
    """`bench DIR/:KERNEL` (file None: the captured kernel) or `bench FILE --launch DIR/:KERNEL`."""

    kind: ClassVar[str] = "bench"
    reference: str
    kernel: str
    file: str | None
    peak: Peak
    launches: tuple[LaunchTiming, ...]

    @property
    def ok(self) -> bool:
        return all(t.assembly_matched is not False for t in self.launches)

    @property
    def exit_status(self) -> ExitStatus:
        return ExitStatus.SUCCESS if self.ok else ExitStatus.FAILED


@dataclass(frozen=True)
class ReleaseTimings(Result):
    """`bench ... --vary triton=A,B`: the same launches timed under each release (each in its own
    worker process), beside the first compiler pass whose output differs between the first two."""

    kind: ClassVar[str] = "bench releases"
    subject: str  # the kernel file, or DIR/:KERNEL
    releases: tuple[str, ...]
    runs: tuple[BenchResult | ReplayResult | None, ...]  # one per release; None where it failed
    errors: tuple[str | None, ...]  # why a release's run failed
    passes: Any = None  # results.passes.PassesComparison of the first two releases
    passes_error: str | None = None

    @property
    def exit_status(self) -> ExitStatus:
        ok = all(r is not None and r.ok for r in self.runs)
        return ExitStatus.SUCCESS if ok else ExitStatus.FAILED

    def ratios(self) -> list[tuple[str, list[float | None]]]:
        """Per launch (or size and variant): each release's time over the first release's."""
        rows = [_times(r) for r in self.runs]
        first = rows[0] if rows else {}
        return [(key, [_ratio(row.get(key), ms) for row in rows]) for key, ms in first.items()]


def _times(run: BenchResult | ReplayResult | None) -> dict[str, float | None]:
    if isinstance(run, ReplayResult):
        return {f"launch {t.number} ({t.tensors})": t.ms for t in run.launches}
    if isinstance(run, BenchResult):
        return {f"size {m.size} {m.label}".rstrip(" {}"): m.ms for m in run.results}
    return {}


def _ratio(ms: float | None, first: float | None) -> float | None:
    return ms / first if ms and first else None
