"""From a compile's Artifacts to a Compilation: the stages, resources, instruction mix and line map.

Nothing here runs a tool or imports Triton: a fresh compile and a kernel read from a cache
take the same path.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..core.errors import TritonscopeError
from ..core.model import Artifacts, Compilation, KernelSpec, Occupancy, Resources, Variant
from ..core.stages import Stage
from ..core.targets import Target
from ..parsers import amdgcn, cuobjdump, ptxas
from ..parsers.errors import ParseError
from . import instruction_mix, linemap, warp_specialize
from .resources import amd_resources, nvidia_resources


def to_compilation(
    spec: KernelSpec, variant: Variant, artifacts: Artifacts, target: Target, line_map: dict | None = None
) -> Compilation:
    """`line_map`: the maps of some stages built beforehand (`early_line_map`), not built again."""
    backend = target.vendor
    texts = artifacts.texts
    stages = _stages(spec, texts, target)
    machine = backend.machine_code
    if machine not in stages and not artifacts.notices:
        raise TritonscopeError(f"the {machine.title} is missing: resources cannot be read without it")
    resources = read_resources(target, artifacts)
    # With no machine code (a notice says why: an nvdisasm older than the target), nothing is counted.
    resources = replace(resources, instructions=instruction_mix.count(machine, stages.get(machine, "")))
    line_maps = linemap.build(stages, spec.file, spec.first_line, known=line_map)
    return Compilation(
        kernel=spec,
        variant=variant,
        stages=stages,
        binary=artifacts.binary,
        binary_ext=backend.binary,
        metadata=artifacts.metadata,
        resources=resources,
        compile_seconds=artifacts.seconds,
        triton_version=str(artifacts.metadata.get("triton_version", "")),
        notices=artifacts.notices,
        line_map=line_maps,
        cache_hit=artifacts.cache_hit,
        remarks=artifacts.remarks,
        stage_seconds=artifacts.stage_seconds,
        partitions=_partitions(spec, stages, line_maps),
    )


# The symbol an sm90-on cubin gives the driver's reserved KiB of shared memory, which its static shared
# size (cuobjdump's SHARED:1024) then holds: counted once (ptxas 12.8 and 12.9, sm90 to sm121)
RESERVED_SECTION = b".nv.reservedSmem"


def read_resources(target: Target, artifacts: Artifacts) -> Resources:
    """Registers, spills, shared memory and occupancy, read off the binary's resource listing (NVIDIA) or the
    AMDGCN metadata: no machine code needed (`fit` reads them so, for many compiles). A listing that
    does not read is the user's input (a damaged cache entry): tritonscope's error, with the parser's words."""
    try:
        if target.vendor.name == "cuda":
            return _nvidia(target, artifacts.texts, artifacts.metadata, RESERVED_SECTION in artifacts.binary)
        return _amd(target, artifacts.texts, artifacts.metadata)
    except ParseError as exc:
        raise TritonscopeError(str(exc)) from None


def _partitions(spec: KernelSpec, stages: dict[Stage, str], line_maps: dict) -> tuple:
    if Stage.TTGIR not in stages or "ttg.warp_specialize" not in stages[Stage.TTGIR]:
        return ()
    ttgir_map = line_maps.get(Stage.TTGIR, {})
    found = warp_specialize.partitions(stages[Stage.TTGIR], ttgir_map, spec.file, stages.get(Stage.PTX, ""))
    # A region's closing ops carry the kernel's own location (its `def` line): no partition runs that.
    return tuple(replace(p, python_lines=tuple(n for n in p.python_lines if n != spec.line)) for p in found)


@dataclass(frozen=True)
class StagesFiled:
    """A compile's stages filed so far (triton_api/early_stages.py), as its process names them to
    another that shows them (the explorer's): what was compiled, where Triton filed each stage's
    text ({"ttir": path, ...}), and whether they are all those before the binary."""

    spec: KernelSpec
    variant: Variant
    target: Target
    files: dict[str, str]
    whole: bool


def stages_so_far(filed: StagesFiled, texts: dict[str, str], known: dict | None = None) -> Compilation:
    """A Compilation of the stages a compile has made so far (`filed`, their `texts` read): TTIR while
    TTGIR is made, ..., TTIR to PTX while ptxas runs, with their line maps (those in `known`, built
    for an earlier call, kept): no binary, no machine code, and its resources not known yet (zeros,
    and BINARY_PENDING among its notices). The explorer shows its stages so."""
    spec, variant, target = filed.spec, filed.variant, filed.target
    stages = _stages(spec, texts, target)
    stages.pop(target.vendor.machine_code, None)
    unknown = Resources(0, 0, 0, 0, 0, Occupancy(0, 0, 1, "not known yet"))
    return Compilation(
        kernel=spec,
        variant=variant,
        stages=stages,
        binary=b"",
        binary_ext=target.vendor.binary,
        metadata={},
        resources=unknown,
        compile_seconds=0.0,
        triton_version="",
        notices=(BINARY_PENDING,),
        line_map=linemap.build(stages, spec.file, spec.first_line, known=known),
    )


BINARY_PENDING = "the binary is being made (ptxas): its resources and machine code come with it"


def early_line_map(spec: KernelSpec, artifacts: Artifacts, target: Target) -> dict:
    """The line maps of every stage but the machine code: built while the machine code is still
    being disassembled (a sweep's nvdisasm run), then handed to `to_compilation`."""
    stages = _stages(spec, artifacts.texts, target)
    stages.pop(target.vendor.machine_code, None)
    return linemap.build(stages, spec.file, spec.first_line)


def _stages(spec: KernelSpec, texts: dict[str, str], target: Target) -> dict[Stage, str]:
    stages = {Stage.SOURCE: spec.source} if spec.source else {}
    for stage in target.vendor.stages_for(spec.language)[1:]:
        if stage.value in texts:
            stages[stage] = texts[stage.value]
    return stages


def _nvidia(target: Target, texts: dict[str, str], metadata: dict, reserved_included: bool = False):
    usage = cuobjdump.kernel_usage(texts.get("resource_usage", ""), metadata["name"])
    report = texts.get("ptxas_report", "")
    spilled = ptxas.spill_bytes(report)  # None: not asked (no local memory), or not reported
    shared = metadata.get("shared", 0)
    found = nvidia_resources(target, usage, shared, metadata["num_warps"], spilled, reserved_included)
    losses = tuple(f"ptxas: {loss}" for loss in ptxas.performance_losses(report))
    return replace(found, warnings=found.warnings + losses) if losses else found


def _amd(target: Target, texts: dict[str, str], metadata: dict):
    fields = amdgcn.kernel_metadata(texts["amdgcn"])
    waves = amdgcn.llvm_occupancy(texts["amdgcn"])
    return amd_resources(target, fields, metadata.get("shared", 0), metadata["num_warps"], waves)
