"""The app functions as front ends that keep Triton out of their own process call them: as tasks, in
a worker (isolate/session.py). The agent server (and the explorer) make each task from a function
here, `task(calls.dump, request, stages, lines)`, with the same typed values as the command line's;
each function is a thin call of the app function its command uses, imported where the task runs,
so that this module imports nothing heavy and the front end never imports Triton."""

from __future__ import annotations

import pickle
import sys
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.autotune_rule import AutotuneRule
from ..core.errors import UsageError
from ..core.model import CheckEntry, VariantRequest
from ..core.source import Source
from ..core.stages import Stage
from ..core.targets import Target

COMPILE_MODULE = "tritonscope.app.dump"  # what a warm worker imports before its first call (Triton with it)


def samples():
    from .catalog import samples

    return samples()


def answer_inputs(source: Source) -> tuple[str, ...]:
    """The files and folders a kept answer on this source depends on (app/walk/packages.answer_inputs)."""
    from .walk.packages import answer_inputs as inputs

    return inputs(source)


def list_kernels(source: Source, target: Target):
    from .catalog import list_kernels

    return list_kernels(source, target)


def dump(request: VariantRequest, stages: tuple[Stage, ...] | None, lines: tuple[int, int] | None):
    from .dump import dump

    return dump(_installed(request), stages, lines, compiled_by=_compile_kept)


_KEEP = 16
_kept: OrderedDict[bytes, Any] = OrderedDict()  # this worker's compiles, by the variant each compiled


def _compile_kept(request: VariantRequest):
    """The compile of a request, kept in this worker by the variant it names: a request for a variant
    compiled before (another stage list, `auto` for the same target) is answered without compiling or
    disassembling again. Keyed by the source too (a notebook cell's definitions are in it)."""
    from ..core.source import CachedKernel
    from .walk.prepare import compile_prepared, compile_request, prepare

    if request.triton is not None or isinstance(request.source, CachedKernel):
        return compile_request(request)
    prepared = prepare(request)
    key = pickle.dumps((request.source, prepared.target.name, prepared.variant, prepared.kernel.spec))
    if key not in _kept:
        _kept[key] = compile_prepared(prepared)
        while len(_kept) > _KEEP:
            _kept.popitem(last=False)
    _kept.move_to_end(key)
    return _kept[key]


def explain(request: VariantRequest, what_if: bool, live: bool, compile_time: bool, grid=None):
    from .explain import explain

    return explain(_installed(request), what_if=what_if, live=live, compile_time=compile_time, grid=grid)


def check(request: VariantRequest, budgets: tuple[str, ...], baseline: str | None):
    """`check FILE --budget ... [--baseline REPORT.json]`: one kernel held to its budgets."""
    from .check import budgets as parsed
    from .check import check

    if not budgets and baseline is None:
        raise UsageError("nothing to check: give budgets (e.g. spills=0, registers<=128) or a baseline report")
    name = request.file + (f" -k {request.kernel}" if request.kernel else "")
    return check([CheckEntry(name, _installed(request), parsed(list(budgets), "budget"), baseline)])


def diff(request: VariantRequest, axes: tuple[tuple[str, tuple[Any, ...]], ...], configs: bool, stages, timeout: float):
    """`diff FILE --vary NAME=V1,V2 ...` (or `--configs`): each variant in a worker of its own."""
    from .diff import diff, worker_count
    from .walk.sweep import Axis

    if not axes and not configs:
        raise UsageError('nothing to compare: give vary (e.g. {"num_warps": [4, 8]}) or configs')
    _releases_installed(request, axes)
    chosen = [Axis(name, values) for name, values in axes]
    return diff(request, chosen, configs, stages, "first", worker_count(None)[0], timeout)


def passes(request: VariantRequest, show: str | None, timeout: float):
    from .passes import passes

    return passes(_installed(request), show, False, timeout)


def passes_compare(request: VariantRequest, axes: tuple[tuple[str, tuple[Any, ...]], ...], timeout: float):
    """`passes --vary NAME=A,B`: the two pipelines and the first pass whose output differs."""
    from .passes import compare
    from .walk.sweep import Axis

    _releases_installed(request, axes)
    return compare(request, [Axis(name, values) for name, values in axes], timeout)


def fit(
    request: VariantRequest,
    targets: tuple[str, ...] | None,
    axes: tuple[tuple[str, tuple[Any, ...]], ...],
    budgets,
    timeout,
    rank: bool = False,
    grid: str | None = None,
):
    """`fit FILE [--targets LIST] [--vary ...] [--budget ...] [--rank [--grid G]]` (a target given alone
    is the one column), or `fit DIR/` (a capture's compiles as the rows)."""
    from ..core import launch_grid
    from ..core.source import CaptureFolder
    from .capture_fit import fit_capture
    from .check import budgets as parsed
    from .diff import worker_count
    from .fit import DEFAULT_TARGETS
    from .fit import fit as fit_kernel
    from .fit_rank import Ranking
    from .walk.sweep import Axis

    if request.target != "auto":
        if targets is not None:
            raise UsageError("give the targets in targets (one or several), or one in target; not both")
        targets, request = (request.target,), replace(request, target="auto")
    chosen, given = targets or DEFAULT_TARGETS, parsed(list(budgets), "budget")
    if grid is not None and not rank:
        raise UsageError("grid is the grid rank=True estimates the launch for: give rank=True too")
    ranking = Ranking(launch_grid.parse(grid) if grid is not None else None) if rank else None
    jobs = worker_count(None)[0]
    if isinstance(request.source, CaptureFolder):
        return fit_capture(Path(request.file), request.kernel, chosen, given, jobs, timeout, ranking=ranking)
    _releases_installed(request, axes)
    return fit_kernel(request, chosen, [Axis(n, v) for n, v in axes], given, jobs, timeout, ranking=ranking)


def layout(request: VariantRequest, value: str | None, line: int | None, shape: str | None, timeout: float):
    from ..analysis.layouts import parse_shape
    from .layout import layout

    return layout(None, parse_shape(shape) if shape else None, _installed(request), value, line, timeout)


def grid(request: VariantRequest, size: tuple[int, ...] | None, wave: int | None, timeout: float):
    from .grid import grid

    return grid(_installed(request), size, wave, timeout)


def launched(source: Source | None, kernel: str, compiled):
    """A kernel the caller's process launched, read from what Triton kept of it (`ts.launched`)."""
    from .launched import dump_launched

    return dump_launched(source, kernel, compiled)


def trace(command: tuple[str, ...], out: str, force: bool, launches: int, target: Target | None, rule, limit: float):
    """`trace -o OUT [--target T] -- COMMAND`, the program stopped after `limit` seconds. What the
    program prints is kept, then copied to this process's stderr: a front end that runs this task
    sees none of it, so a program that fails is an error with its exit code and its last lines."""
    import tempfile

    from .trace import Simulation, failed_program, trace

    protected = [Path(word) for word in command if Path(word).exists()]  # the program and its files
    chosen: AutotuneRule | None = rule
    if chosen is not None and target is None:
        raise UsageError(
            f"autotune {chosen.given}: on a real GPU the autotuner times its candidates; the rule is for a "
            "simulated one",
            hint="give a target as well (e.g. sm90)",
        )
    simulation = Simulation(target, chosen) if target is not None else None
    with tempfile.TemporaryFile() as printed:  # never this process's stdout: a front end's carries its protocol
        try:
            result = trace(list(command), Path(out), force, protected, launches, printed, simulation, limit, printed)
        finally:
            printed.seek(0)
            said = printed.read().decode(errors="replace")
            sys.stderr.write(said)
    if result.returncode != 0 and not result.stopped:
        raise failed_program(command, result, said)
    return result


def capture_list(folder: str):
    from .catalog import cache_list

    return cache_list(Path(folder))


def capture_diff(before: str, after: str, kernel: str | None, stages, timeout: float):
    """`diff DIR1/ DIR2/` (every compile paired), or `-k NAME` (one kernel's stages diffed)."""
    from .capture_diff import diff_captures, kernel_diff
    from .diff import worker_count

    if kernel:
        return kernel_diff(Path(before), Path(after), kernel, stages)
    return diff_captures(Path(before), Path(after), worker_count(None)[0], timeout)


def capture_check(folder: str, budgets: tuple[str, ...], baseline: str | None, timeout: float):
    from .capture_check import check_capture
    from .check import budgets as parsed
    from .diff import worker_count

    given = parsed(list(budgets), "budget")
    if not given and baseline is None:
        raise UsageError("nothing to check: give budgets (e.g. spills=0) or a baseline capture folder")
    if baseline is not None and not Path(baseline).is_dir():
        raise UsageError(f"baseline {baseline}: checking a capture, the baseline is a capture folder too")
    return check_capture(Path(folder), given, Path(baseline) if baseline else None, worker_count(None)[0], timeout)


def _installed(request: VariantRequest) -> VariantRequest:
    """The request, once its Triton release is known to be installed: installing one downloads Triton
    for minutes, which a call is not the place for."""
    if request.triton is not None:
        _release_ready(request.triton)
    return request


def _releases_installed(request: VariantRequest, axes) -> None:
    _installed(request)
    for name, values in axes:
        if name == "triton":
            for release in values:
                _release_ready(release)


def _release_ready(release: str) -> None:
    from .walk import releases

    checked = releases.checked(release)
    if not releases.is_running(checked) and not releases.env_for(checked).ready:
        raise UsageError(
            f"Triton {checked} is not installed for tritonscope",
            hint=f"run `tritonscope envs add {checked}` once (it downloads Triton), then ask again",
        )
