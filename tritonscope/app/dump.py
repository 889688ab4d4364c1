"""`dump`, `compare` and `report`: one compilation (or a cached one), the stages asked for, and an
optional filter to what some Python lines became."""

from __future__ import annotations

from collections.abc import Callable

from ..analysis import scoreboards
from ..analysis.linemap import requested_lines
from ..core.errors import UsageError
from ..core.model import Compilation, VariantRequest
from ..core.stages import NOT_PRODUCED, Stage
from ..core.targets import Target
from ..results.dump import CompareResult, DumpResult
from .walk.prepare import compile_request


def dump(
    request: VariantRequest,
    stages: tuple[Stage, ...] | None,
    lines: tuple[int, int] | None,
    control: bool = False,
    compiled_by: Callable[[VariantRequest], Compilation] = compile_request,
) -> DumpResult:
    """The compilation, with every stage its target produces unless some are named; with `control`,
    each SASS instruction's control code and what its waits wait for. `compiled_by`: how the request is
    compiled (a session's worker keeps its compiles: app/calls.py)."""
    target = request.target_info  # None for a kernel compiled already: its stages checked once read
    if stages is not None and target is not None:
        check_stages(stages, target)  # fails before a slow compile
    if control and target is not None and target.vendor.machine_code is not Stage.SASS:
        raise UsageError(f"--control reads NVIDIA SASS; {target.name} has {target.vendor.machine_code.title}")
    compilation = compiled_by(request)
    produced = _produced(compilation)
    if stages is not None:
        _check_produced(stages, compilation, produced)
    chosen = tuple(s for s in produced if stages is None or s in stages)
    schedule = scoreboards.schedule(compilation) if control else None
    if control and schedule is None:
        raise UsageError(f"--control: no SASS for {compilation.kernel.name} ({'; '.join(compilation.notices)})")
    return DumpResult(compilation, chosen, requested_lines(compilation, lines), schedule, stages is not None)


def compare(request: VariantRequest, stages: tuple[Stage, ...] | None, lines: tuple[int, int] | None) -> CompareResult:
    """Two or three stages side by side, aligned by Python line (default source, TTGIR, machine code)."""
    if stages is not None and not 2 <= len(stages) <= 3:
        raise UsageError(f"compare shows 2 or 3 stages; --stage names {len(stages)}")
    target = request.target_info  # None for a kernel compiled already: its own target, once read
    shown = dump(request, stages or (_compared(target) if target else None), lines)
    chosen = shown.stages if stages or target else _compared(shown.compilation.variant.target_info)
    return CompareResult(shown.compilation, tuple(s for s in chosen if s in shown.stages), shown.source_lines)


def _compared(target: Target) -> tuple[Stage, ...]:
    """What `compare` shows when no stage is named: the source, TTGIR and the machine code."""
    return (Stage.SOURCE, Stage.TTGIR, target.vendor.machine_code)


def check_stages(stages: tuple[Stage, ...], target: Target) -> None:
    """Every named stage is one the target produces for some kernel (the kernel's language is checked
    once it is loaded: _check_produced)."""
    available = target.vendor.stages
    names = ", ".join(_with_language(s) for s in available)
    for stage in stages:
        if stage not in available:
            raise UsageError(f"stage '{stage.value}' is not produced for {target.name}. Stages: {names}")


def _with_language(stage: Stage) -> str:
    """A stage's name, with the language that alone has it: `ttir (@triton.jit kernels)`."""
    lacking = [language for language, missing in NOT_PRODUCED.items() if stage.value in missing]
    having = [language for language in NOT_PRODUCED if language not in lacking]
    return f"{stage.value} ({having[0].decorator} kernels)" if lacking and len(having) == 1 else stage.value


def _check_produced(stages: tuple[Stage, ...], compilation, produced: tuple[Stage, ...]) -> None:
    """Every named stage is one this kernel has: a Gluon kernel has no TTIR, a Triton kernel no GLIR,
    and GLIR exists from Triton 3.9 on."""
    language = compilation.kernel.language
    names = ", ".join(s.value for s in produced)
    for stage in stages:
        if stage in produced:
            continue
        if stage.value in NOT_PRODUCED[language]:
            raise UsageError(
                f"a {language.decorator} kernel has no {stage.value} stage "
                f"({compilation.kernel.name}'s stages: {names})"
            )
        why = next((n for n in compilation.notices if n.startswith(f"no {stage.value.upper()}:")), None)
        raise UsageError(
            f"stage '{stage.value}' was not produced by Triton {compilation.triton_version} "
            f"for {compilation.kernel.name}. Stages: {names}" + (f"\n{why}" if why else "")
        )


def _produced(compilation) -> tuple[Stage, ...]:
    return tuple(s for s in Stage if s in compilation.stages)
