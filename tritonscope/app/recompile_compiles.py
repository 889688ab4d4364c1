"""`recompiles DIR/ --shapes ... --compile`: each predicted variant compiled once, in workers, from the
kernel's file as a warmup launch made it with the predicted example's values: its compile time."""

from __future__ import annotations

import dataclasses

from ..captures.timeline import Timeline
from ..core.pysource import declared_constexprs
from ..isolate import pool, task
from ..results.recompiles import KernelForecast, PredictedCompile
from .fix_proofs import FixPlan, request_for
from .walk.prepare import compile_request

JOBS = 2
TIMEOUT = 300.0


def with_compile_times(kernels: list[KernelForecast], timeline: Timeline, cut: float) -> list[KernelForecast]:
    """KERNELS with each predicted variant's compile time (None where it could not be compiled)."""
    work = []
    for k_index, kernel in enumerate(kernels):
        record = next((r for r in timeline.compiles if r.get("name") == kernel.name), None)
        launch = next((x for x in timeline.launches if x.get("name") == kernel.name and x.get("params")), None)
        if record is None or launch is None or not record.get("file"):
            continue
        for p_index, variant in enumerate(kernel.predicted):
            request = request_for(_plan(record, launch), _at(launch, variant), fixed=False)
            work.append((k_index, p_index, request))
    if not work:
        return kernels
    with pool(jobs=min(JOBS, len(work)), timeout=TIMEOUT) as workers:
        outcomes = list(workers.run([task(compile_request, request) for _, _, request in work]))
    predicted = {i: list(k.predicted) for i, k in enumerate(kernels)}
    for (k_index, p_index, _), outcome in zip(work, outcomes, strict=True):
        seconds = outcome.value.compile_seconds if outcome.ok else None
        predicted[k_index][p_index] = dataclasses.replace(predicted[k_index][p_index], compile_seconds=seconds)
    return [dataclasses.replace(k, predicted=tuple(predicted[i])) for i, k in enumerate(kernels)]


def _plan(record: dict, launch: dict) -> FixPlan:
    signature = tuple((str(n), str(t)) for n, t in (record.get("signature") or {}).items())
    declared = declared_constexprs(str(record.get("source") or ""), str(record.get("name"))) or set()
    options = tuple(sorted((record.get("options") or {}).items()))
    return FixPlan(
        kernel=str(record.get("name")),
        file=record.get("file"),
        signature=signature,
        declared=tuple(n for n, _ in signature if n in declared),
        launches=(launch, launch),
        launch_options=(options, options),
        script=record.get("module") == "__main__",
    )


def _at(launch: dict, predicted: PredictedCompile) -> dict:
    """The warmup launch with the predicted variant's integers and constexprs in place of its own."""
    values = predicted.arguments
    args = []
    for name, arg in zip(launch["params"], launch["args"], strict=False):
        if name in values and arg.get("kind") == "int":
            arg = {"kind": "int", "value": values[name]}
        args.append(arg)
    return {**launch, "args": args}
