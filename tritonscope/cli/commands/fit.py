from __future__ import annotations

import contextlib
import keyword
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from ...core.errors import UsageError
from ...core.model import OPTION_NAMES, VariantRequest
from ...core.quantities import count
from ...core.source import CaptureFolder
from ...core.status import ExitStatus
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
        help="Also write a Python module whose prune_configs keeps the configs that fit the GPU a launch runs "
        "on: give it to @triton.autotune as prune_configs_by={'early_config_prune': prune_configs}.",
    ),
]
SAY_EVERY = 30.0  # seconds: without a terminal, the longest a run of compiles goes unsaid


RankOpt = Annotated[
    bool,
    typer.Option(
        "--rank",
        help="Estimate each config's launch time on each target's GPU (the grid: --grid, a captured launch's, "
        "or the file's grid(meta)), name the fastest per target and why the runner-up is slower.",
    ),
]
GridOpt = Annotated[
    str | None,
    typer.Option(
        "--grid",
        metavar="X[,Y[,Z]]",
        help="With --rank: the launch grid, as sizes or expressions of the arguments and each config's "
        "constexprs ('cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)'). Default: the file's grid(meta).",
    ),
]
ConfigOutOpt = Annotated[
    str | None,
    typer.Option(
        "--emit-config",
        metavar="vllm[:FILE.json]",
        help="With --rank and one target: write the fastest config for each value of the first --vary, "
        "the batch size (--vary M=1,16,64), as vLLM's fused-MoE config files are written; later --vary "
        "are the configs' values where the kernel has no autotune configs (default file: device_name=GPU.json).",
    ),
]
KeepOpt = Annotated[
    int | None,
    typer.Option(
        "--keep",
        metavar="N",
        help="With --emit-prune: the pruner keeps the N fastest configs that fit each target (implies --rank).",
    ),
]


@command()
@variant_flags(resolve_target=False)  # --target is one column of the matrix; auto, every default one
def fit(
    request,
    targets: TargetsOpt = None,
    vary: VaryOpt = None,
    budget: BudgetOpt = None,
    emit_prune: PruneOpt = None,
    rank: RankOpt = False,
    grid: GridOpt = None,
    keep: KeepOpt = None,
    emit_config: ConfigOutOpt = None,
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
    the configs found to fit it (with --keep N, the N fastest of them). --rank adds each cell's
    estimated launch time (explain's whole-launch estimate, nothing more compiled), the fastest
    configs per target and why the runner-up is slower; over a capture, against the config the
    program launched.

    Examples:

      tritonscope fit sample:matmul_autotune

      tritonscope fit kernels.py -k matmul_kernel --targets sm86,sm89,sm90 --emit-prune matmul_fit.py

      tritonscope fit sample:matmul -c BLOCK_SIZE_M=128 --vary num_stages=2,3,4,5 --budget spills=0

      tritonscope fit run1/ --targets sm89     (will this program's kernels run on an L4?)

      tritonscope fit sample:matmul_autotune --rank --targets h200,sm80     (which is fastest where?)

      tritonscope fit kernels.py -k mm --rank --grid 'cdiv(M,BLOCK_M)*cdiv(N,BLOCK_N)' --emit-prune p.py --keep 3
    """
    from ...app.capture_fit import default_targets
    from ...app.diff import worker_count
    from ...app.fit_rank import Ranking
    from ...core import launch_grid
    from .. import argtypes

    if request.target != "auto":  # one target, as every command names it: the matrix's one column
        if targets is not None:
            raise UsageError("give the targets with --targets (one or several), or one with --target; not both")
        targets, request = request.target, replace(request, target="auto")
    chosen = argtypes.target_list(targets) if targets is not None else default_targets(request)
    _refuse(request, vary, emit_prune)
    _refuse_ranking(rank, grid, keep, emit_prune)
    ranking = Ranking(launch_grid.parse(grid) if grid is not None else None) if rank or keep or emit_config else None
    budgets = argtypes.budgets(budget)
    config_files = _config_file(emit_config, vary, chosen, request)  # refused before any compile
    workers = worker_count(jobs)[0]
    with _counted(f"compiling for {count(len(chosen), 'target')}") as on_done:
        result = _matrix(request, chosen, vary, budgets, workers, argtypes.timeout(timeout), ranking, on_done)
    if ranking is not None and ranking.grid is not None:
        _refuse_grid(result)
    options = {"module": emit_prune.stem, "keep": keep} if emit_prune is not None else {}
    files = (File(emit_prune, "script", "--emit-prune", (request.file,), options),) if emit_prune is not None else ()
    return _written(result, files + config_files, keep)


def _refuse_grid(result) -> None:
    """A --grid no cell could evaluate: the user's to fix (exit 2), not a matrix of cells with no estimate."""
    if result.refused_grid:
        raise UsageError(result.refused_grid)


def _written(result, files: tuple, keep: int | None) -> Output:
    """The output with the files to write: none from a partial matrix (a pruner of the cells compiled
    before Ctrl-C would drop the rest), said; --keep's targets without estimates said."""
    why = None
    if result.partial:
        why = "the matrix is partial; any earlier one is kept"
    elif result.configs_by_target:  # one list of configs to match a launch's against: one target's
        why = "the configs differ by target: run fit for one target, --targets NAME, for each"
    elif result.exit_status is ExitStatus.FAILED:  # its pruner would drop every config: no launch could run
        why = "no config compiled"
    elif any(not row.values for k in result.kernels for row in k.rows):  # `CONFIGS = [{}]` keeps every config
        why = "the kernel has no autotune configs and nothing was varied: there is nothing to choose among"
    if why and files:
        note = f"not written: {', '.join(str(f.path) for f in files)} ({why})"
        return Output(replace(result, notes=(*result.notes, note)))
    if keep is not None:
        result = replace(result, notes=(*result.notes, *_unranked(result, keep)))
    return Output(result, files=files)


def _unranked(result, keep: int) -> list[str]:
    """--keep N where a target has no estimates (no grid known, not an NVIDIA target): its pruner keeps
    every config that fits there, said rather than left to surprise."""
    notes = []
    for k in result.kernels:
        for target in k.targets:
            if k.ranked(target) or not k.fitting(target):
                continue
            why = next((c.estimate_note for c in k.column(target) if c.estimate_note), "no estimate")
            notes.append(f"--keep {keep}: {target} has no estimates ({why}): its pruner keeps every config that fits")
    return notes


def _matrix(request: VariantRequest, targets, vary, budgets, workers: int, timeout: float, ranking, on_done=None):
    from ...app.capture_fit import fit_capture
    from ...app.fit import fit as run_fit
    from ...app.walk.sweep import Axis
    from .. import argtypes

    if isinstance(request.source, CaptureFolder):
        return fit_capture(
            Path(request.file), request.kernel, targets, budgets, workers, timeout, on_done, ranking=ranking
        )
    axes = [Axis(name, values) for name, values in argtypes.axes(vary)]
    return run_fit(request, targets, axes, budgets, workers, timeout, on_done, ranking=ranking)


@contextlib.contextmanager
def _counted(message: str) -> Iterator[Callable[[int, int], None]]:
    """`N of M compiled`: on a terminal in the status line; without one, a line on stderr at the first
    compile and each quarter of the matrix, or after SAY_EVERY seconds, whichever comes first (a log
    shows fit is at work, in five lines or so, not one per compile)."""
    said = [-1, time.monotonic()]  # the quarter last said (the first compile is), and when
    with progress(message) as step:

        def on_done(compiled: int, of: int) -> None:
            step.detail = f"{compiled} of {of} compiled"
            if sys.stderr.isatty():  # the status line says it
                return
            quarter = compiled * 4 // of
            if quarter > said[0] or time.monotonic() - said[1] >= SAY_EVERY:
                said[:] = [quarter, time.monotonic()]
                say(f"fit: {message}: {step.detail}")

        yield on_done


def _config_file(given: str | None, vary, targets: tuple[str, ...], request: VariantRequest) -> tuple:
    """--emit-config vllm[:FILE]: one target, one --vary axis (the batch size); the file vLLM would name."""
    from ...app.fit import refuse_vllm_names
    from ...core.targets import named

    if given is None:
        return ()
    form, _, path = given.partition(":")
    if form != "vllm":
        raise UsageError(f"--emit-config {given}: the one format is vllm (--emit-config vllm[:FILE.json])")
    axes = [item.partition("=")[0].strip() for item in vary or ()]
    if axes and axes[0] in OPTION_NAMES:
        raise UsageError(
            f"--emit-config vllm: --vary {axes[0]} is a launch option; the config file is keyed by a batch size "
            "(an argument of the kernel: --vary M=1,16,64,256)"
        )
    if not axes or len(targets) != 1:
        raise UsageError(
            "--emit-config vllm writes one GPU's best config per batch size: "
            + ("give one target (--targets h200)" if len(targets) != 1 else "give the sizes as the first --vary")
            + " (--vary M=1,16,64,256; later --vary are the configs' values: --vary BLOCK_SIZE_M=16,64)"
        )
    target = named(targets[0])
    refuse_vllm_names(request, target, axes)
    gpu = target.device_name if target is not None else targets[0]
    file = Path(path or f"device_name={gpu.replace(' ', '_')}.json")
    # the tile sizes and options given once are every entry's too: vLLM launches with the entry alone
    fixed = {k: v for k, v in request.constexprs if k.startswith(("BLOCK_SIZE", "GROUP_SIZE"))}
    fixed |= {o: getattr(request, o) for o in ("num_warps", "num_stages") if getattr(request, o) is not None}
    return (File(file, "vllm", "--emit-config", (request.file,), {"size": axes[0], "fixed": fixed}),)


def _refuse_ranking(rank: bool, grid: str | None, keep: int | None, emit_prune: Path | None) -> None:
    if grid is not None and not (rank or keep):
        raise UsageError("--grid is the grid --rank estimates the launch for: give --rank too")
    if keep is not None and emit_prune is None:
        raise UsageError("--keep N is how many configs the pruner of --emit-prune keeps: give --emit-prune FILE.py")
    if keep is not None and keep < 1:
        raise UsageError(f"--keep {keep}: the pruner keeps at least one config")
    if emit_prune is not None and (
        emit_prune.suffix != ".py" or not emit_prune.stem.isidentifier() or keyword.iskeyword(emit_prune.stem)
    ):  # its docstring says `from NAME import prune_configs`
        fixed = re.sub(r"\W", "_", emit_prune.stem) + ("_" if keyword.iskeyword(emit_prune.stem) else "")
        raise UsageError(
            f"--emit-prune {emit_prune}: the pruner is imported by its file's name, so it must be a Python "
            f"module's name ending .py (e.g. {emit_prune.with_name(fixed.lstrip('0123456789') or 'prune')}.py)"
        )


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
