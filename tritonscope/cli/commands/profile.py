from __future__ import annotations

from typing import Annotated

import typer

from ..messages import progress
from ..options import FileArg, JsonOpt, KernelOpt
from ..runner import command


@command()
def profile(
    file: FileArg,
    kernel: KernelOpt = None,
    size: Annotated[
        str | None,
        typer.Option("--size", metavar="N", help="Problem size, as the file's make_inputs takes it (4096, 2**20)."),
    ] = None,
    vary: Annotated[
        list[str] | None,
        typer.Option(
            "--vary", metavar="NAME=VALUE", help="A keyword of the file's launch hook (BLOCK_SIZE=256). Repeatable."
        ),
    ] = None,
    input_options: Annotated[
        list[str] | None,
        typer.Option("--input", metavar="NAME=VALUE", help="A keyword for the file's make_inputs hook. Repeatable."),
    ] = None,
    launch_number: Annotated[
        int, typer.Option("--launch", metavar="K", help="With DIR/:KERNEL: which recorded launch (from 1).")
    ] = 1,
    json_out: JsonOpt = False,
    timeout: Annotated[float, typer.Option("--timeout", metavar="S", help="Seconds ncu may run.")] = 300.0,
):
    """Measure one launch of a kernel under Nsight Compute (ncu): the cost of each Python line.

    Runs the kernel once through the file's run hooks (make_inputs, launch) on the local GPU, under
    ncu's source counters, and shows per Python line the warp-stall samples with their reasons, the
    instructions executed and the memory traffic, beside explain's static figures. Needs a CUDA GPU,
    torch and ncu.

    Examples:

      tritonscope profile sample:matmul

      tritonscope profile sample:vector_add --size 2**24 --vary BLOCK_SIZE=256 --json

      tritonscope profile run1/:matmul_kernel          (a launch `trace` recorded, replayed)
    """
    from ...app.profile import profile as run_profile
    from ...app.profile import profile_captured
    from ...core.errors import UsageError
    from ...core.source import CachedKernel
    from .. import argtypes

    source = argtypes.source(file)
    if isinstance(source, CachedKernel):
        if size or vary or input_options or kernel:
            raise UsageError("-k, --size, --vary and --input need run hooks; a recorded launch has its own")
        with progress(f"replaying {file} under ncu"):
            result = profile_captured(source, launch_number, argtypes.timeout(timeout))
        return result
    sizes, launch = argtypes.size_list([size] if size else None), argtypes.launch_keywords(vary, "--vary")
    inputs = argtypes.launch_keywords(input_options, "--input")
    with progress(f"running {file} under ncu"):
        result = run_profile(source, kernel, sizes[0] if sizes else None, launch, inputs, argtypes.timeout(timeout))
    return result
