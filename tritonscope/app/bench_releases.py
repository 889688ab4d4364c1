"""`bench DIR/:KERNEL --vary triton=A,B` and `bench FILE --vary triton=A,B`: the same launches
timed under each release, one after another (never two at once on the GPU), each release in a
fresh worker of its own interpreter; beside them, the first compiler pass whose output differs
between the first two releases (`passes --vary triton=A,B`)."""

from __future__ import annotations

from dataclasses import replace

from ..core.errors import TritonscopeError
from ..core.model import VariantRequest
from ..core.source import CachedKernel
from ..core.source import parse as parse_source
from ..isolate import Task, Workers, task
from ..results.bench import ReleaseTimings
from .walk import releases


def plan(subject: str, wanted: tuple[str, ...], sizes: list[int], inputs: dict) -> list[Task]:
    """One task per release: the captured launches replayed, or the file's run hooks run. Each task
    is given SUBJECT as typed, and parses it in its worker (core/source.py), as a command line would."""
    from .bench import bench, replay  # here: the module imports Triton, which this process may not need

    captured = isinstance(parse_source(subject), CachedKernel)
    tasks = []
    for release in wanted:
        python = releases.python_for(release)
        if captured:
            tasks.append(task(replay, subject, python=python))
        else:
            tasks.append(task(bench, subject, sizes, [], inputs, python=python))
    return tasks


def bench_releases(
    subject: str, wanted: tuple[str, ...], sizes: list[int], inputs: dict, kernel: str | None, timeout: float
) -> ReleaseTimings:
    from .bench import require_gpu

    require_gpu()  # here, before any worker: the one clear message on a machine without a GPU
    runs, errors = [], []
    for release_task in plan(subject, wanted, sizes, inputs):
        with Workers(jobs=1, timeout=timeout) as workers:  # a fresh process for each release
            (outcome,) = workers.run([release_task])
        runs.append(outcome.value if outcome.ok else None)
        errors.append(outcome.error)
    comparison, problem = divergence(subject, kernel, wanted, timeout)
    return ReleaseTimings(subject, wanted, tuple(runs), tuple(errors), comparison, problem)


def divergence(subject: str, kernel: str | None, wanted: tuple[str, ...], timeout: float):
    """(the passes of the first two releases compared, or None; why not). A file's kernel is compiled
    with its default specialization, a captured one with the capture's."""
    from .passes import compare
    from .walk.sweep import Axis

    try:
        request = VariantRequest(file=subject).resolved()
        if not isinstance(request.source, CachedKernel):
            request = replace(request, kernel=kernel)
        return compare(request, [Axis("triton", tuple(wanted[:2]))], timeout), None
    except TritonscopeError as exc:
        return None, exc.message
