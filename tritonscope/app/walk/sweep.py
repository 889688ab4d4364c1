"""Variant sweeps: --vary axes expanded into requests, compiled in isolated workers.

Each variant runs the whole pipeline (load, specialize, compile) in a worker (isolate/),
so a heuristic or compiler that raises, aborts or segfaults, or runs past the timeout, fails
that variant alone. Results come back in variant order, whatever the number of workers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ...core import targets
from ...core.errors import UsageError
from ...core.model import OPTION_NAMES, KernelSpec, ParamKind, VariantRequest
from ...core.values import format_value
from ...isolate import Executor, Outcome, Task, on_cluster
from ...results.diff import VariantOutcome
from . import releases

AXIS_OPTIONS = (*OPTION_NAMES, "target", "config", "triton")
COMPILE_MODULE = "tritonscope.app.walk.prepare"  # the module of the tasks' functions: warmed workers preload it


@dataclass(frozen=True)
class Axis:
    name: str
    values: tuple[Any, ...]  # typed values (core/values.py)


def expand(
    base: VariantRequest, axes: list[Axis], spec: KernelSpec, configs: bool, at_least: int = 2, flag: str = "--vary"
) -> list[VariantOutcome]:
    """Every combination of the axes (and of the autotune configs with --configs), as requests; a diff
    needs two (`fit` takes one: a kernel with neither configs nor axes is one row). `flag`: the option
    that gave the axes, as errors name it."""
    if configs:
        if not spec.autotune_configs:
            raise UsageError(f"--configs: {spec.name} has no @triton.autotune configs")
        axes = [Axis("config", tuple(c.index for c in spec.autotune_configs)), *axes]
    kinds = {p.name: p.kind for p in spec.params}
    for axis in axes:
        if axis.name not in kinds and axis.name not in AXIS_OPTIONS:
            names = ", ".join([*kinds, *OPTION_NAMES, "target", "triton"])
            raise UsageError(f"{flag} {axis.name}: not a parameter of {spec.name} nor an option. Can vary: {names}")
    variants = []
    for values in itertools.product(*(axis.values for axis in axes)):
        request = base
        for axis, value in zip(axes, values, strict=True):
            request = _with(request, axis.name, value, kinds)
        label = {a.name: format_value(v) for a, v in zip(axes, values, strict=True)}
        variants.append(VariantOutcome(label, request))
    if len(variants) < at_least:
        raise UsageError("a diff needs at least two variants: give --vary NAME=V1,V2 (or --configs)")
    return variants


def _with(request: VariantRequest, name: str, value: Any, kinds: dict[str, ParamKind]) -> VariantRequest:
    if name == "target":  # an unknown one refused before any compile, as --target is
        return request.for_target(targets.parse_name(str(value)))
    if name == "triton":
        return replace(request, triton=releases.checked(value))
    if name in AXIS_OPTIONS:
        if not isinstance(value, int) or isinstance(value, bool):
            raise UsageError(f"--vary {name}: '{format_value(value)}' is not an integer")
        option: dict[str, Any] = {name: value}  # one option, named at run time
        return replace(request, **option)
    return request.with_value(name, value, constexpr=kinds[name] is ParamKind.CONSTEXPR)


def run(
    variants: list[VariantOutcome], workers: Executor, on_done: Callable[[VariantOutcome], None] | None = None
) -> list[VariantOutcome]:
    """Compiles every variant in the workers (isolated, `workers.jobs` at a time); each VariantOutcome in the
    list is replaced by one with its compilation or error."""
    from .prepare import SassAhead, Undisassembled, finish

    results: dict[int, Any] = {}
    # With several workers, the first to run out of tasks leaves a core free while the last compiles
    # finish: the SASS of those in by then is read there (SassAhead), and only the rest's after them.
    first_idle = len(variants) - min(workers.jobs, len(variants)) + 1
    ahead: list[SassAhead] = []

    def done(index: int, result: Outcome) -> None:
        results[index] = result.value
        variants[index] = replace(variants[index], error=result.error)
        if len(results) == first_idle < len(variants):
            ahead.append(SassAhead(list(results.values())))
        if on_done:
            on_done(variants[index])

    workers.run(_tasks(variants, workers.jobs), on_done=done)
    workers.close()  # each holds a compiler's memory, and what is left (nvdisasm, analysis) needs none

    # Local workers send this release's compiles back without SASS: disassembled here, in one nvdisasm
    # run (two where some were read ahead). A cluster's nodes finished theirs (none is pending).
    pending = sorted(i for i, value in results.items() if isinstance(value, Undisassembled))
    for index, compilation in zip(pending, finish([results[i] for i in pending], *ahead), strict=True):
        results[index] = compilation
    variants[:] = [replace(variant, compilation=results.get(index)) for index, variant in enumerate(variants)]
    return variants


def _tasks(variants: list[VariantOutcome], jobs: int) -> list[Task]:
    """One task per variant. Another release's compiles and disassembles in a worker of its own (with
    its own nvdisasm). This release's leaves the disassembly to `run`, which reads every cubin in
    one nvdisasm run, except on a cluster: there the node finishes its own compile
    (`compile_finished`), so that the head does no work per variant. With several workers, each also
    builds its compile's line maps (`compile_mapped`), side by side, instead of `run` after the last
    compile; with one, `run` builds them while nvdisasm runs, which hides them."""
    from .prepare import compile_finished, compile_mapped, compile_request, compile_undisassembled  # loaded by now

    here = compile_finished if on_cluster() else compile_mapped if jobs > 1 else compile_undisassembled
    return [releases.task(compile_request, (v.request,), v.request.triton, (v.request.file,), here) for v in variants]
