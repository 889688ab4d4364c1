"""What differs between GPU vendors, in one table: stages, machine code, binary, resources, words.

A target (core/targets.py) names its backend; everything vendor-specific is read from the
backend's entry here instead of branching on the vendor across the code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .stages import NOT_PRODUCED, Language, Stage


@dataclass(frozen=True)
class Words:
    """How the vendor names things, for the views."""

    registers: str  # per-thread registers: registers / VGPRs
    warps: str  # warps / waves
    multiprocessor: str  # SM / CU
    shared: str  # shared memory / LDS
    local: str  # local memory / scratch
    spills: str  # what the spill figure counts
    shared_ops: str  # shared-memory instructions
    matrix_ops: str  # matrix instructions
    local_ops: str  # local-memory instructions


@dataclass(frozen=True)
class Backend:
    name: str  # Triton's backend name: cuda, hip
    vendor: str
    stages: tuple[Stage, ...]  # what a compile produces, in pipeline order
    machine_code: Stage  # the stage the instruction mix and per-line cost are read from
    binary: Literal["cubin", "hsaco"]  # Triton's key (and file extension) of the binary
    words: Words

    def stages_for(self, language: Language | str) -> tuple[Stage, ...]:
        """The stages a kernel in `language` has on this vendor, in pipeline order (a stage
        of a newer Triton, such as GLIR, is shown only where the compile produced it)."""
        missing = NOT_PRODUCED[Language(language)]
        return tuple(s for s in self.stages if s.value not in missing)

    def label(self, arch: int | str) -> str:
        """The name the vendor uses for an architecture: sm_90, gfx942."""
        return f"sm_{arch}" if self.name == "cuda" else str(arch)


NVIDIA = Backend(
    name="cuda",
    vendor="NVIDIA",
    stages=(Stage.SOURCE, Stage.TTIR, Stage.GLIR, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS),
    machine_code=Stage.SASS,
    binary="cubin",
    words=Words(
        registers="registers",
        warps="warps",
        multiprocessor="SM",
        shared="shared memory",
        local="local memory",
        spills="4-byte words in local memory per thread",
        shared_ops="LDS, LDSM / STS",
        matrix_ops="HMMA, HGMMA, QMMA, UTCHMMA...",
        local_ops="LDL / STL: spills, local arrays",
    ),
)
AMD = Backend(
    name="hip",
    vendor="AMD",
    stages=(Stage.SOURCE, Stage.TTIR, Stage.GLIR, Stage.TTGIR, Stage.LLIR, Stage.AMDGCN),
    machine_code=Stage.AMDGCN,
    binary="hsaco",
    words=Words(
        registers="VGPRs",
        warps="waves",
        multiprocessor="CU",
        shared="LDS",
        local="scratch",
        spills="spilled VGPRs + SGPRs",
        shared_ops="ds_read / ds_write",
        matrix_ops="MFMA, WMMA",
        local_ops="scratch",
    ),
)
BACKENDS = {b.name: b for b in (NVIDIA, AMD)}
