from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..messages import progress
from ..options import FileArg, JsonOpt, KernelOpt
from ..output import File, Output
from ..runner import command

if TYPE_CHECKING:  # the command's import stays light: --help loads no result module
    from ...results.bench import ReplayResult


def _replay(file: str, kernel: str | None, launch: str | None) -> ReplayResult:
    """bench DIR/:KERNEL, or bench FILE --launch DIR/:KERNEL: recorded launches timed, no run hooks."""
    from ...app.bench import replay, replay_file
    from .. import argtypes

    with progress(f"replaying the launches recorded in {launch or file} on the GPU"):
        return replay(file) if launch is None else replay_file(file, kernel, argtypes.cached_kernel(launch))


def _releases(file: str, kernel, vary, size, input_options, other):
    from ...app.bench_releases import bench_releases
    from ...app.walk import releases
    from ...app.walk.sweep import Axis
    from ...core.errors import UsageError
    from .. import argtypes
    from ..installs import ensure_releases

    axes = argtypes.axes(vary)
    if len(axes) > 1 or other or len(axes[0][1]) < 2:
        raise UsageError("--vary triton=A,B times two releases or more, alone: no other --vary, --launch or --plot")
    wanted = tuple(releases.checked(r) for r in axes[0][1])
    ensure_releases([Axis("triton", wanted)])
    with progress(f"timing {file} under Triton {', '.join(wanted)} on the GPU"):
        return bench_releases(
            file, wanted, argtypes.size_list(size), dict(argtypes.assignments(input_options, "--input")), kernel, 600.0
        )


def _axes(vary: list[str] | None, space: list[str] | None) -> list:
    from ...app.walk.sweep import Axis
    from ...core.errors import UsageError
    from .. import argtypes

    if vary and space:
        raise UsageError("--space and --vary are two ways to sweep: give one of them")
    return [Axis(name, values) for name, values in argtypes.axes(vary or space)]


@command()
def bench(
    file: FileArg,
    size: Annotated[
        list[str] | None,
        typer.Option(
            "--size",
            metavar="N",
            help="Problem size, as the file's make_inputs takes it (4096, 2**20), or a range of powers of two "
            "(2**12..2**27). Repeatable.",
        ),
    ] = None,
    vary: Annotated[
        list[str] | None,
        typer.Option(
            "--vary",
            metavar="NAME=V1,V2",
            help="Values of a keyword of the file's launch hook "
            "(a constexpr such as BLOCK_SIZE, or num_warps). Repeatable.",
        ),
    ] = None,
    input_options: Annotated[
        list[str] | None,
        typer.Option(
            "--input",
            metavar="NAME=VALUE",
            help="A keyword for the file's make_inputs hook, e.g. head_dim=128. Repeatable.",
        ),
    ] = None,
    space: Annotated[
        list[str] | None,
        typer.Option(
            "--space",
            metavar="NAME=V1,V2",
            help="Explore this space statically (as `diff --space`), then run and time its Pareto set alone. "
            "Repeatable; not with --vary.",
        ),
    ] = None,
    kernel: KernelOpt = None,
    launch: Annotated[
        str | None,
        typer.Option(
            "--launch",
            metavar="DIR/:KERNEL",
            help="Launch FILE's kernel with the arguments, grid and options recorded for this captured kernel.",
        ),
    ] = None,
    json_out: JsonOpt = False,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            metavar="FILE",
            help="Also draw throughput against size, the kernel's variants and torch, as .svg or .png "
            "(needs matplotlib: tritonscope[plot]).",
        ),
    ] = None,
):
    """Run and time a kernel on the local GPU, checked against torch, beside torch's own speed.

    Needs a CUDA GPU and torch, and the run hooks of the kernel file (every sample has them; see
    docs/kernel-files.md). A wrong result is reported and not timed.

    A kernel captured by `tritonscope trace` needs no hooks: `bench DIR/:KERNEL` replays each
    distinct recorded launch (compiled as captured, the PTX hash checked), and `bench FILE -k
    KERNEL --launch DIR/:KERNEL` launches the file's kernel with the recorded arguments.

    Examples:

      tritonscope bench sample:matmul --size 4096 --size 8192

      tritonscope bench sample:vector_add --vary BLOCK_SIZE=256,1024,4096

      tritonscope bench sample:matmul --space BLOCK_SIZE_M=32,64,128 --space BLOCK_SIZE_K=32,64

      tritonscope bench sample:vector_add --size 2**12..2**27 --plot add.svg

      tritonscope bench sample:fused_attention --size 4096 --input head_dim=128

      tritonscope bench run1/:triton_poi_fused_add_0

      tritonscope bench my_kernels.py -k add_kernel --launch run1/:add_kernel

    --vary triton=A,B times the same launches under each release (each in a fresh worker of
    its own interpreter), with the first compiler pass whose output differs between them:

      tritonscope bench run1/:matmul_kernel --vary triton=3.6.0,3.7.1

      tritonscope bench sample:vector_add --size 2**24 --vary triton=3.6.0,3.7.1
    """
    from ...app.bench import bench as run_bench
    from ...core.errors import UsageError
    from ...core.source import CachedKernel
    from .. import argtypes

    if any(item.partition("=")[0].strip() == "triton" for item in vary or ()):
        return _releases(file, kernel, vary, size, input_options, launch or plot)
    if launch or isinstance(argtypes.source(file), CachedKernel):
        if size or vary or space or input_options or plot:
            raise UsageError("--size, --vary, --input and --plot need run hooks; a recorded launch has its own shapes")
        return _replay(file, kernel, launch)
    axes = _axes(vary, space)
    inputs = dict(argtypes.assignments(input_options, "--input"))
    drawn = _plot(plot, file)  # checked before any GPU time is spent
    with progress(f"running {file} on the GPU"):
        result = run_bench(file, argtypes.size_list(size), axes, inputs, bool(space))
    return Output(result, files=drawn)


def _plot(plot: Path | None, file: str) -> tuple[File, ...]:
    """--plot FILE: the plot, in the format its name says, written beside the view."""
    from ...results.bench import BenchResult

    if plot is None:
        return ()
    drawn = File(plot, "plot", "--plot", (file,), {"path": plot}, said="plot written to {path}", style="dim")
    return (drawn.checked(BenchResult),)
