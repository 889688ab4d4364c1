from __future__ import annotations

import contextlib
import math
import time
from typing import Annotated

import typer

from ...core.errors import UsageError
from ..installs import ensure_releases
from ..messages import progress, say
from ..options import ClusterOpt, HtmlOpt, JsonOpt, TimeoutOpt, variant_flags
from ..output import File, Output
from ..runner import command, preload

VaryOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--vary",
        metavar="NAME=V1,V2",
        help="Values to compare for a constexpr, an argument's type or value, num_warps, num_stages, "
        "num_ctas, maxnreg, target or triton (releases). Repeatable: several make every combination.",
    ),
]
SpaceOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--space",
        metavar="NAME=V1,V2",
        help="Explore a space instead of diffing: every combination of these axes (as --vary takes), shown as "
        "failures by cause, the Pareto set and --top N, for hundreds of configs. Repeatable.",
    ),
]
TopOpt = Annotated[int | None, typer.Option("--top", metavar="N", help="With --space: the N best configs by --sort.")]
SortOpt = Annotated[
    str,
    typer.Option(
        "--sort",
        metavar="FIGURE",
        help="With --space --top: registers, spills, shared, occupancy (best: highest), instructions or findings.",
    ),
]


@command()
@variant_flags
def diff(
    request,
    other: Annotated[
        str | None, typer.Argument(metavar="[DIR2]", help="A second capture folder: compare two captures.")
    ] = None,
    vary: VaryOpt = None,
    space: SpaceOpt = None,
    top: TopOpt = None,
    sort: SortOpt = "occupancy",
    configs: Annotated[bool, typer.Option("--configs", help="Compare every autotune config.")] = False,
    stage: Annotated[
        str | None,
        typer.Option(
            "--stage",
            "--stages",
            metavar="LIST",
            help="Stages to diff, comma-separated (default ttgir,sass; amdgcn on AMD).",
        ),
    ] = None,
    against: Annotated[
        str, typer.Option("--against", help="Diff each variant against the first one, or against the previous one.")
    ] = "first",
    side_by_side: Annotated[bool, typer.Option("--side-by-side", help="Show diffs in two columns.")] = False,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", help="Compile this many variants at once (default: the cores).")
    ] = None,
    timeout: TimeoutOpt = 300.0,
    cluster: ClusterOpt = None,
    html_out: HtmlOpt = None,
    json_out: JsonOpt = False,
):
    """Compare variants of a kernel (resources, instruction mix, normalized IR diffs), or two captures.

    Each variant compiles in its own worker process, so one that fails, crashes or hangs is
    reported and the others still finish (exit code 1 if any failed).

    Examples:

      tritonscope diff sample:vector_add --vary BLOCK_SIZE=256,1024

      tritonscope diff sample:matmul --vary num_warps=4,8 --vary num_stages=2,3,4 --stage ttgir

      tritonscope diff sample:softmax --vary target=sm80,sm90,gfx942

      tritonscope diff my.py -k kern --vary x_ptr='*fp16,*fp32' -c BLOCK=128

      tritonscope diff sample:matmul_autotune --configs

      tritonscope diff sample:softmax --vary triton=3.6.0,3.9.0

      tritonscope diff sample:matmul --vary num_warps=2,4,8 --cluster auto
      (on a running Ray cluster: ray start --head)

      tritonscope diff sample:matmul --space BLOCK_SIZE_M=32,64,128 --space num_warps=4,8 --top 5 --sort registers

    Two captures (`trace -o DIR`): every kernel compile paired with its counterpart, same,
    changed (each figure's delta; regressions marked), added or removed. Nothing is compiled.

      tritonscope diff before/ after/

      tritonscope diff before/ after/ -k matmul_kernel --stage sass

      tritonscope diff before/ --vary triton=3.6.0,3.9.0     (every captured kernel, each release)
    """
    from ...app.diff import diff as run_diff
    from ...app.walk.sweep import Axis
    from .. import argtypes
    from .capture_diff import capture_diff, wants_captures

    workers = _workers(jobs)
    if wants_captures(request, other, html_out, configs):
        return capture_diff(request, other, vary, stage, workers, argtypes.timeout(timeout), side_by_side)
    from ...results.diff import DiffResult

    preload(DiffResult)  # its renderer imported before the compiles, not after them

    axes = [Axis(name, values) for name, values in argtypes.axes(vary or space)]
    ensure_releases(axes)
    if space:
        return _explore(request, axes, vary, workers, timeout, top, sort)
    with _progress_bar() as advance:
        result = run_diff(
            request, axes, configs, argtypes.stages(stage), against, workers, argtypes.timeout(timeout), advance
        )
    page = (File(html_out, "html", "--html", (request.file,)),) if html_out is not None else ()
    return Output(result, {"side_by_side": side_by_side}, files=page)


def _workers(jobs: int | None) -> int:
    from ...app.diff import worker_count

    workers, notice = worker_count(jobs)
    if notice:
        say(notice, "yellow")
    return workers


def _explore(request, axes, vary, workers: int, timeout: float, top, sort: str) -> Output:
    from ...app.space import explore
    from .. import argtypes

    if vary:
        raise UsageError("--space and --vary are two ways to sweep: give one of them")
    total = math.prod(len(a.values) for a in axes)
    with _progress_bar(total) as advance:
        result = explore(request, axes, workers, argtypes.timeout(timeout), top, sort, advance)
    return Output(result)


@contextlib.contextmanager
def _progress_bar(total: int | None = None):
    """How many variants have compiled (and, where their number is known, about how long the rest
    take), said by the status line on a terminal; yields the callback that counts one more."""
    done, started = [0], time.monotonic()
    with progress("compiling variants") as step:

        def advance(outcome) -> None:
            done[0] += 1
            step.detail = f"{done[0]} of {total} done" if total else f"{done[0]} done"
            if total and done[0] < total:
                left = (time.monotonic() - started) / done[0] * (total - done[0])
                step.detail += f", about {left:.0f} s left"

        yield advance
