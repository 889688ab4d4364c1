"""`diff --space`: an autotune space explored, for hundreds of configs.

Each config compiles and is explained where it runs (a local worker or a cluster's node), and
only its figures come back: a few numbers per config, so the head does no analysis and moves
no IR. Configs that fail, or compile past a limit, are counted by cause; the rest are reduced
to their Pareto set and a top N. The figures are static (read off the compile): no GPU runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..analysis import findings as kinds
from ..core.errors import UsageError
from ..core.model import VariantRequest
from ..isolate import Outcome, Task, pool
from ..results.space import SpacePoint, SpaceResult
from .walk import releases, sweep

# The figures a config is judged by, and which way is better.
LOWER = ("registers", "spills", "shared", "instructions")
HIGHER = ("occupancy",)
SHOWN = (*LOWER[:3], "occupancy", "instructions", "findings")


def explore(
    request: VariantRequest,
    axes: list[sweep.Axis],
    jobs: int,
    timeout: float,
    top: int | None = None,
    sort: str = "occupancy",
    on_done: Callable[[SpacePoint], None] | None = None,
) -> SpaceResult:
    from .walk.load import load_file
    from .walk.prepare import from_reference

    if sort not in SHOWN:
        raise UsageError(f"--sort {sort}: not a figure. Sort by one of: {', '.join(SHOWN)}")
    base = from_reference(request)
    spec = load_file(base.source, base.target_info).pick(base.kernel).spec
    variants = sweep.expand(base, axes, spec, configs=False, flag="--space")
    points: list[SpacePoint | None] = [None] * len(variants)

    def done(index: int, outcome: Outcome) -> None:
        point = points[index] = _point(variants[index].label, outcome)
        if on_done:
            on_done(point)

    with pool(jobs=jobs, timeout=timeout) as workers:
        workers.run(_tasks(variants), on_done=done)
    ready = tuple(p for p in points if p is not None)
    front = pareto(ready)
    return SpaceResult(tuple(a.name for a in axes), ready, front, ranked(ready, sort, top), sort)


def _tasks(variants: list[sweep.VariantOutcome]) -> list[Task]:
    return [releases.task(measure, (v.request,), v.request.triton, (v.request.file,)) for v in variants]


def measure(request: VariantRequest) -> dict[str, Any]:
    """In a worker: one config compiled and explained (no what-ifs), down to its figures."""
    from .check import figures
    from .explain import explain_compilation
    from .walk.prepare import compile_request

    # explain's findings, less the registers live per line: they change no figure here (only where an
    # occupancy finding points), and would cost an nvdisasm run per config.
    result = explain_compilation(compile_request(request), None, live=False)
    values = {name: figures(result)[name] for name in SHOWN}
    values["over_shared_limit"] = any(f.kind == kinds.SHARED_LIMIT for f in result.findings)
    return values


def _point(label: dict[str, str], outcome: Outcome) -> SpacePoint:
    if not outcome.ok:
        return SpacePoint(label, cause=cause_of(outcome.error or ""), error=outcome.error)
    values = dict(outcome.value)
    over = values.pop("over_shared_limit", False)
    if over:
        return SpacePoint(label, values, "shared memory", "needs more shared memory than the target has")
    return SpacePoint(label, values)


def cause_of(error: str) -> str:
    """Why a config failed, as counted: the limit it hit, a timeout, or other."""
    text = error.lower()
    if "shared memory" in text or "shared_memory" in text or "out of resource: shared" in text:
        return "shared memory"
    if "register" in text:
        return "registers"
    if text.startswith("timed out"):
        return "timeout"
    return "other"


def _key(figures: dict[str, Any]) -> tuple[float, ...]:
    """The figures as all lower-is-better."""
    return (*(figures[n] for n in LOWER), *(-figures[n] for n in HIGHER))


def pareto(points: tuple[SpacePoint, ...]) -> tuple[int, ...]:
    """The configs no other config beats on every figure (equal on all and better on one)."""
    keys = [(i, _key(p.figures)) for i, p in enumerate(points) if p.cause is None and p.figures]
    front = []
    for i, mine in keys:
        beaten = any(all(o <= m for o, m in zip(other, mine, strict=True)) and other != mine for _, other in keys)
        if not beaten:
            front.append(i)
    return tuple(front)


def ranked(points: tuple[SpacePoint, ...], sort: str, top: int | None) -> tuple[int, ...]:
    """The configs that compiled within the limits, best first by `sort` (ties: fewer instructions)."""
    sign = -1 if sort in HIGHER else 1
    usable = {i: p.figures for i, p in enumerate(points) if p.cause is None and p.figures}
    order = sorted(usable, key=lambda i: (sign * usable[i][sort], usable[i]["instructions"], i))
    return tuple(order if top is None else order[:top])
