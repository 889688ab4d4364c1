from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..app import command, emit, progress, say
from ..options import FileArg, JsonOpt
from .render import terminal


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

    Examples:

      tritonscope bench sample:matmul --size 4096 --size 8192

      tritonscope bench sample:vector_add --vary BLOCK_SIZE=256,1024,4096

      tritonscope bench sample:vector_add --size 2**12..2**27 --plot add.svg

      tritonscope bench sample:fused_attention --size 4096 --input head_dim=128
    """
    from ...app.bench import bench as run_bench
    from ...app.sweep import Axis
    from ...render import plot as plots
    from ...render.terminal.bench import BenchView
    from .. import argtypes

    axes = [Axis(name, values) for name, values in argtypes.axes(vary)]
    inputs = dict(argtypes.assignments(input_options, "--input"))
    if plot:
        plots.check(plot)
    with progress(f"running {file} on the GPU"):
        result = run_bench(file, argtypes.size_list(size), axes, inputs)
    emit(terminal(BenchView, json_out, "bench"), result)
    if plot:
        plots.write(result, plot)
        say(f"plot written to {plot}", "dim")
    if not result.ok:
        raise typer.Exit(1)
