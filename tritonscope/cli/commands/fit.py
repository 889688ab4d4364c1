from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from ...core.errors import UsageError
from ...core.model import VariantRequest
from ...core.quantities import count
from ...core.source import CaptureFolder
from ..messages import progress, say
from ..options import ClusterOpt, JsonOpt, TimeoutOpt, variant_flags
from ..output import File, Output
from ..runner import command
from .check import BudgetOpt, JobsOpt

TargetsOpt = Annotated[
    str | None,
    typer.Option(
        "--targets",
        metavar="LIST",
        help="Targets to compile for, comma-separated (default: sm75,sm80,sm86,sm89,sm90,sm100,sm120,gfx942: "
        "a T4, A100, A10 or RTX 3090, L4 or RTX 4090, H100, B200, RTX 5090 and MI300X).",
    ),
]
VaryOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--vary",
        metavar="NAME=V1,V2",
        help="A grid of configs (as diff --vary takes), for a kernel without @triton.autotune configs; "
        "with configs, every config times the grid. Repeatable.",
    ),
]
PruneOpt = Annotated[
    Path | None,
    typer.Option(
        "--emit-prune",
        metavar="FILE.py",
        help="Also write a Python module whose prune_configs, given to "
        "@triton.autotune(prune_configs_by={'early_config_prune': ...}), keeps the configs that fit the GPU "
        "a launch runs on.",
    ),
]
SAY_EVERY = 30.0  # seconds: without a terminal, the longest a run of compiles goes unsaid


@command()
@variant_flags(resolve_target=False)  # --target is one column of the matrix; auto, every default one
def fit(
    request,
    targets: TargetsOpt = None,
    vary: VaryOpt = None,
    budget: BudgetOpt = None,
    emit_prune: PruneOpt = None,
    jobs: JobsOpt = None,
    timeout: TimeoutOpt = 300.0,
    cluster: ClusterOpt = None,
    json_out: JsonOpt = False,
):
    """Which autotune configs fit which GPU: every config compiled for every target, no GPU needed.

    Each cell says whether the config fits the target (registers, spills, shared memory, occupancy),
    does not fit (shared memory over the target's limit, with the buffers that make it up, threads or
    registers over a block's limit, or a --budget broken: a launch there raises OutOfResources), or does
    not compile (the compiler's reason). Given a capture folder (`trace -o DIR`), every kernel compile
    in it is a row. --emit-prune writes the pruner that keeps, on the GPU a launch runs on, exactly
    the configs found to fit it.

    Examples:

      tritonscope fit sample:matmul_autotune

      tritonscope fit kernels.py -k matmul_kernel --targets sm86,sm89,sm90 --emit-prune matmul_fit.py

      tritonscope fit sample:matmul -c BLOCK_SIZE_M=128 --vary num_stages=2,3,4,5 --budget spills=0

      tritonscope fit run1/ --targets sm89     (will this program's kernels run on an L4?)
    """
    from ...app.diff import worker_count
    from ...app.fit import DEFAULT_TARGETS
    from .. import argtypes

    if request.target != "auto":  # one target, as every command names it: the matrix's one column
        if targets is not None:
            raise UsageError("give the targets with --targets (one or several), or one with --target; not both")
        targets, request = request.target, replace(request, target="auto")
    chosen = argtypes.target_list(targets) if targets is not None else DEFAULT_TARGETS
    _refuse(request, vary, emit_prune)
    budgets = argtypes.budgets(budget)
    workers = worker_count(jobs)[0]
    with _counted(f"compiling for {count(len(chosen), 'target')}") as on_done:
        result = _matrix(request, chosen, vary, budgets, workers, argtypes.timeout(timeout), on_done)
    files = (
        (File(emit_prune, "script", "--emit-prune", (request.file,), {"module": emit_prune.stem}),)
        if emit_prune is not None
        else ()
    )
    return Output(result, files=files)


def _matrix(request: VariantRequest, targets, vary, budgets, workers: int, timeout: float, on_done=None):
    from ...app.capture_fit import fit_capture
    from ...app.fit import fit as run_fit
    from ...app.walk.sweep import Axis
    from .. import argtypes

    if isinstance(request.source, CaptureFolder):
        return fit_capture(Path(request.file), request.kernel, targets, budgets, workers, timeout, on_done)
    axes = [Axis(name, values) for name, values in argtypes.axes(vary)]
    return run_fit(request, targets, axes, budgets, workers, timeout, on_done)


@contextlib.contextmanager
def _counted(message: str) -> Iterator[Callable[[int, int], None]]:
    """`N of M compiled`: on a terminal in the status line; without one, a line on stderr at each tenth
    of the matrix or after SAY_EVERY seconds, whichever comes first (a log shows fit is at work)."""
    said = [-1, time.monotonic()]  # the tenth last said (the first compile is), and when
    with progress(message) as step:

        def on_done(compiled: int, of: int) -> None:
            step.detail = f"{compiled} of {of} compiled"
            if sys.stderr.isatty():  # the status line says it
                return
            tenth = compiled * 10 // of
            if tenth > said[0] or time.monotonic() - said[1] >= SAY_EVERY:
                said[:] = [tenth, time.monotonic()]
                say(f"fit: {message}: {step.detail}")

        yield on_done


def _refuse(request: VariantRequest, vary, emit_prune: Path | None) -> None:
    if request.config is not None:
        raise UsageError("fit compiles every autotune config: --config picks one (see `tritonscope dump`)")
    if any(name.partition("=")[0].strip() in ("target", "triton") for name in vary or ()):
        raise UsageError("--vary target= is --targets here; another Triton release is --triton")
    if not isinstance(request.source, CaptureFolder):
        return
    if request != VariantRequest(file=request.file, source=request.source, kernel=request.kernel):
        raise UsageError(f"{request.file} is a capture: variant flags (but -k) do not apply to its kernels")
    if vary:
        raise UsageError(f"{request.file} is a capture: its compiles are the rows, --vary does not apply")
    if emit_prune is not None and request.kernel is None:
        raise UsageError("--emit-prune writes one kernel's pruner: name the kernel with -k")
