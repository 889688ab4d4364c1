"""What each command returns: frozen results that renderers turn into text, JSON, HTML or files.

One type per command. A renderer (render/) takes one of these and never compiles; the
command layer (cli/) only parses flags, calls app/, and hands the result to a renderer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .model import Compilation, KernelSpec, Variant
from .stages import SourceLine, Stage

if TYPE_CHECKING:
    from ..analysis.cost import LineCost
    from ..analysis.diffing import StageDiff
    from ..analysis.findings import Finding
    from ..analysis.layouts import Layout, Ownership
    from ..analysis.measured import Measured
    from ..analysis.passes import Divergence, LlvmPassRecord, PassRecord
    from ..app.bench import LaunchTiming, Measurement, Peak
    from ..app.cache import CacheEntry
    from ..app.check import EntryOutcome
    from ..app.grid import Program
    from ..app.sweep import Outcome
    from .samples import Sample


@dataclass(frozen=True)
class SamplesResult:
    samples: tuple[Sample, ...]


@dataclass(frozen=True)
class KernelList:
    path: Path
    kernels: tuple[KernelSpec, ...]
    defaults: dict[str, Any]  # the file's tritonscope_defaults


@dataclass(frozen=True)
class DumpResult:
    compilation: Compilation
    stages: tuple[Stage, ...]  # the stages asked for, in pipeline order
    source_lines: frozenset[SourceLine] | None = None  # only what these Python lines became


@dataclass(frozen=True)
class DiffResult:
    outcomes: tuple[Outcome, ...]
    diffs: tuple[StageDiff, ...]
    missing: tuple[str, ...] = ()  # stages no variant produced

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outcomes)


@dataclass(frozen=True)
class PassesResult:
    variant: Variant
    records: tuple[PassRecord, ...]
    llvm_records: tuple[LlvmPassRecord, ...] | None = None
    selected: tuple[PassRecord, ...] | None = None  # the passes --show names
    triton_version: str = ""


@dataclass(frozen=True)
class EnvsListing:
    """`tritonscope envs list`: the Triton releases installed for --triton, and the running one."""

    folder: Path
    running: str
    envs: tuple[tuple[str, Path, int], ...]  # (release, environment folder, bytes on disk)


@dataclass(frozen=True)
class PassesComparison:
    """`passes --vary NAME=A,B`: two pipelines, and the first pass whose output differs."""

    labels: tuple[str, str]  # each pipeline's variant, as varied: "triton=3.6.0"
    results: tuple[PassesResult, PassesResult]
    divergence: Divergence

    def only_in(self, which: int) -> list[str]:
        """The pass names one pipeline runs and the other never does."""
        others = {r.name for r in self.results[1 - which].records}
        return list(dict.fromkeys(r.name for r in self.results[which].records if r.name not in others))


@dataclass(frozen=True)
class LayoutResult:
    layout: Layout
    ownership: Ownership
    origin: str | None = None  # where a layout taken from a kernel's TTGIR came from


@dataclass(frozen=True)
class GridResult:
    variant: Variant
    size: tuple[int, ...]
    programs: tuple[Program, ...]
    wave: int | None = None
    wave_loads: dict[str, int] | None = None  # distinct input tiles the first `wave` programs load


@dataclass(frozen=True)
class BenchResult:
    file: str
    peak: Peak
    results: tuple[Measurement, ...]

    @property
    def ok(self) -> bool:
        return all(r.correct for r in self.results)


@dataclass(frozen=True)
class ReplayResult:
    """`bench DIR/:KERNEL` (file None: the captured kernel) or `bench FILE --launch DIR/:KERNEL`."""

    reference: str
    kernel: str
    file: str | None
    peak: Peak
    launches: tuple[LaunchTiming, ...]

    @property
    def ok(self) -> bool:
        return all(t.assembly_matched is not False for t in self.launches)


@dataclass(frozen=True)
class CacheListing:
    folder: Path
    entries: tuple[CacheEntry, ...]
    skipped: tuple[str, ...] = ()  # one line per entry that could not be read


@dataclass(frozen=True)
class TraceResult:
    out: Path
    kernels: tuple[str, ...]
    returncode: int
    launches: int = 0  # launches recorded, all kernels together


@dataclass(frozen=True)
class ReproduceResult:
    reference: str
    kernel: str
    number: int  # which recorded launch, from 1
    launches: int  # how many were recorded
    launch: dict[str, Any]  # the launch record (core/launches.py)
    script: str
    dump_command: str  # the dump line that specializes the kernel as that launch did
    notes: tuple[str, ...] = ()
    source_file: str = ""  # the kernel's file, as the capture recorded it


@dataclass(frozen=True)
class ExplainResult:
    compilation: Compilation
    lines: tuple[LineCost, ...]  # each kernel-file line that produced machine code or a conversion
    findings: tuple[Finding, ...]
    live_registers: bool = False  # nvdisasm's register life ranges were read
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProfileResult:
    kernel: str
    file: str  # the kernel's file
    command: tuple[str, ...]  # the program ncu ran: it launches the kernel once
    measured: Measured  # ncu's counters per Python line
    compilation: Compilation | None  # the binary that ran, read back from its Triton cache
    static: tuple[LineCost, ...] = ()  # explain's cost of each line of that binary
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CheckResult:
    outcomes: tuple[EntryOutcome, ...]

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outcomes)

    @property
    def exit_code(self) -> int:
        """0 every budget holds; 1 one is broken or a kernel does not compile; 2 an entry is bad input."""
        if any(o.exit_code == 2 for o in self.outcomes):
            return 2
        return 0 if self.ok else 1


@dataclass(frozen=True)
class SpacePoint:
    """One config of an explored space: its axis values and static figures (or why it has none)."""

    label: dict[str, str]
    figures: dict[str, Any] | None = None  # registers, spills, shared, occupancy, instructions, findings
    cause: str | None = None  # why it failed or exceeds a limit: shared memory, registers, timeout, other
    error: str | None = None


@dataclass(frozen=True)
class SpaceResult:
    """`diff --space`: every config's figures, the failures by cause, the Pareto set and the top N."""

    axes: tuple[str, ...]
    points: tuple[SpacePoint, ...]
    pareto: tuple[int, ...]  # indices into points, in order
    top: tuple[int, ...]  # indices into points, best first by `sort`
    sort: str
    static: bool = True  # figures read off the compile; no GPU ran anything

    @property
    def failures(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for point in self.points:
            if point.cause:
                counts[point.cause] = counts.get(point.cause, 0) + 1
        return counts

    @property
    def ok(self) -> bool:
        return any(p.cause is None for p in self.points)
