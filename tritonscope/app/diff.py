"""`tritonscope diff`: variants of one kernel compiled in isolated workers, then their stages diffed."""

from __future__ import annotations

import math
import os
from collections.abc import Callable

from ..core.errors import UsageError
from ..core.model import VariantRequest
from ..core.stages import Stage
from ..isolate import Executor, on_cluster, pool, warm_pool
from ..results.diff import DiffResult
from .walk import sweep


def diff(
    request: VariantRequest,
    axes: list[sweep.Axis],
    configs: bool,
    stages: tuple[Stage, ...] | None,
    against: str,
    jobs: int,
    timeout: float,
    on_done: Callable | None = None,
) -> DiffResult:
    if against not in ("first", "previous"):
        raise UsageError(f"--against must be first or previous, not '{against}'")
    with _workers(request, axes, jobs, timeout) as workers:
        from ..analysis import diffing
        from .walk.load import load_file
        from .walk.prepare import from_reference

        base = from_reference(request)
        spec = load_file(base.source, base.target_info).pick(base.kernel).spec
        variants = sweep.expand(base, axes, spec, configs)
        if stages is None:
            target = variants[0].request.target_info
            stages = (Stage.TTGIR, target.vendor.machine_code) if target else (Stage.TTGIR,)
        sweep.run(variants, workers, on_done=on_done)
    compilations = [v.compilation for v in variants]
    diffs, missing = [], []
    for stage in stages:  # a stage only some targets produce is diffed among the variants that have it
        if not any(c is not None and stage in c.stages for c in compilations):
            missing.append(f"no variant produces {stage.value}")
            continue
        diffs += diffing.diff(compilations, stage, against)
    return DiffResult(tuple(variants), tuple(diffs), tuple(missing))


def _workers(request: VariantRequest, axes: list[sweep.Axis], jobs: int, timeout: float) -> Executor:
    """The workers, this release's started first, as many as will be busy: their Python and Triton start-up
    (0.2 s) overlaps this process's own imports and the kernel file's loading. launch.py may have started
    them already, ahead of the command line's imports."""
    busy = math.prod(len(a.values) for a in axes)
    if request.triton is not None or any(a.name == "triton" for a in axes):
        return pool(jobs=jobs, timeout=timeout)  # each release's workers start as its variants come
    if on_cluster():
        return pool(jobs=jobs, timeout=timeout).warm(count=busy, preload=sweep.COMPILE_MODULE)
    return warm_pool(sweep.COMPILE_MODULE, jobs, timeout, count=busy)


def worker_count(jobs: int | None) -> tuple[int, str | None]:
    """How many variants compile at once: the cores by default, and never more (each worker holds a
    compiler's memory); asking for more gets the cores and a notice."""
    cores = os.cpu_count() or 1
    if jobs is None:
        return cores, None
    if jobs < 1:
        raise UsageError(f"-j/--jobs must be at least 1, not {jobs}")
    if jobs > cores:
        return cores, f"-j {jobs}: using {cores} workers, one per core here (each holds a compiler's memory)"
    return jobs, None
