"""The one table of detectors, and `find`, the one way every command gets its findings.

A detector is a function `(Kernel) -> list[Finding]`. Its row names the kind it finds, the stages
it reads, whether it reads the per-line cost (the target's machine code with its line map), the
inputs beyond the compilation it needs, and the languages and backends it applies to. A detector
that applies but lacks what it reads is not run, and the result's notes say which kinds were not
looked for and why, so that no command silently gets a different set. The table's order is the
findings' order; MLIR's remarks are given to the findings last (remarks.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, NamedTuple

from ...core.stages import Language, Stage
from . import access, atomics, gluon, matrix, memory, remarks, target, wgmma
from .kernel import Input, Kernel
from .kinds import (
    ATOMIC_FENCES,
    BANK_CONFLICTS,
    CONVERSION,
    LDS_BYPASS,
    MATRIX,
    NARROW,
    NOT_PIPELINED,
    OCCUPANCY,
    PARTITION,
    SHARED_BUFFERS,
    SHARED_LIMIT,
    SPILLS,
    TCGEN05,
    TMA,
    UNCOALESCED,
    WARP_SPECIALIZE,
    WGMMA_SERIALIZED,
    WGMMA_WAIT,
)
from .model import Finding

BOTH_LANGUAGES = (Language.TRITON, Language.GLUON)
Backend = Literal["cuda", "hip"]


@dataclass(frozen=True)
class Detector:
    kind: str  # the kind of finding it finds (kinds.py)
    detect: Callable[[Kernel], list[Finding]]
    stages: tuple[Stage, ...] = (Stage.TTGIR,)  # the stages it reads, beyond the resources
    costs: bool = False  # it finds nothing without the cost per line: the machine code (SASS, AMDGCN) and its line map
    needs: tuple[Input, ...] = ()  # what it reads beside the compilation
    languages: tuple[Language, ...] = BOTH_LANGUAGES
    backends: tuple[Backend, ...] = ("cuda", "hip")

    def applies(self, k: Kernel) -> bool:
        return k.c.kernel.language in self.languages and k.target.backend in self.backends


CUDA: tuple[Backend, ...] = ("cuda",)
DETECTORS = (
    # What the target's best instructions would do (target.py); each returns nothing off its own targets.
    Detector(TMA, target.tma_candidates, backends=CUDA),
    Detector(WGMMA_WAIT, wgmma.wgmma_waits, backends=CUDA),
    Detector(WGMMA_SERIALIZED, wgmma.wgmma_serialized, (Stage.TTGIR, Stage.SASS), backends=CUDA),
    Detector(WARP_SPECIALIZE, target.warp_specialize_not_applied, backends=CUDA),
    Detector(TCGEN05, target.tcgen05, backends=CUDA),
    Detector(SHARED_BUFFERS, target.shared_buffers, backends=CUDA),
    Detector(LDS_BYPASS, target.lds_bypass, backends=("hip",)),
    # Registers, shared memory and the global accesses (memory.py, access.py), the matrix products.
    Detector(SHARED_LIMIT, memory.over_shared_limit),
    Detector(SPILLS, memory.spills, ()),
    Detector(NARROW, access.narrow, costs=True),
    Detector(UNCOALESCED, access.uncoalesced),
    Detector(MATRIX, matrix.dots),
    Detector(CONVERSION, memory.conversions, costs=True),
    Detector(ATOMIC_FENCES, atomics.atomic_fences, (), costs=True, backends=CUDA),
    # Not on AMD: its stream pipeliner keeps tt.load in the loop when it pipelines.
    Detector(NOT_PIPELINED, memory.not_pipelined, backends=CUDA),
    Detector(OCCUPANCY, memory.occupancy),
    # What a Gluon kernel's author controls, or warp specialization asked for (gluon.py).
    Detector(BANK_CONFLICTS, gluon.bank_conflicts, needs=(Input.SHARED_ACCESSES,)),
    Detector(PARTITION, gluon.partitions),
)
# The inputs some detector cannot run without: their notes name the kinds not looked for.
_NEEDED = {what for detector in DETECTORS for what in detector.needs}


class Found(NamedTuple):
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]  # what was missing, and which kinds were therefore not looked for


def find(k: Kernel) -> Found:
    """Every detector that applies to the kernel, in the table's order, with MLIR's remarks given out."""
    found: list[Finding] = []
    skipped: dict[str, list[str]] = {}  # why -> the kinds not looked for
    for detector in DETECTORS:
        if not detector.applies(k):
            continue
        why = _lacks(k, detector)
        if why:
            skipped.setdefault(why, []).append(detector.kind)
        else:
            found += detector.detect(k)
    notes = [f"{what.value}: {why}" for what, why in k.unread.items() if what not in _NEEDED]
    notes += [f"{why}; not looked for: {', '.join(kinds)}" for why, kinds in skipped.items()]
    return Found(tuple(_with_time(k, remarks.with_remarks(k, found))), tuple(notes))


def _with_time(k: Kernel, found: list[Finding]) -> list[Finding]:
    """Each finding that names a line with the share of the estimated time that line holds."""
    if k.time is None or not any(f.line is not None for f in found):
        return found
    shares = {t.line: t.share for t in k.time.lines}
    return [replace(f, time_share=shares.get(f.line, 0.0)) if f.line is not None else f for f in found]


def _lacks(k: Kernel, detector: Detector) -> str:
    """Why a detector cannot run on this kernel ("" when it can)."""
    stages = k.c.stages
    missing = [s for s in detector.stages if not stages.get(s)]
    if missing:
        return f"the compile has no {' and no '.join(s.name for s in missing)}"
    machine = k.target.vendor.machine_code
    if detector.costs and not stages.get(machine):
        return f"the compile has no {machine.name}, so no cost per line"
    if detector.costs and not k.c.line_map.get(machine):
        return f"the {machine.name} has no line information, so no cost per line"
    unread = [what for what in detector.needs if what in k.unread]
    return "; ".join(f"{what.value}: {k.unread[what]}" for what in unread)
