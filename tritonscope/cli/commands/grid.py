from __future__ import annotations

from typing import Annotated

import typer

from ..messages import progress
from ..options import JsonOpt, TimeoutOpt, variant_flags
from ..runner import command


@command()
@variant_flags
def grid(
    request,
    grid_size: Annotated[
        str | None,
        typer.Option(
            "--grid",
            metavar="X[,Y[,Z]]",
            help="The launch grid, if the file has no grid hook: numbers or expressions of the arguments and "
            "constexprs, as explain takes them ('cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)').",
        ),
    ] = None,
    wave: Annotated[
        int | None,
        typer.Option(
            "--wave",
            metavar="K",
            help="Count the distinct input tiles the first K programs load (K programs running at once, "
            "e.g. the number of SMs).",
        ),
    ] = None,
    timeout: TimeoutOpt = 120.0,
    json_out: JsonOpt = False,
):
    """Show which program computes which part of the output, in launch order, and what it reads.

    Runs the kernel's own index arithmetic under Triton's interpreter, on the CPU, recording each
    program's loads and stores (no memory is touched). Scalar arguments need values (-a M=1152).
    Needs numpy (pip install numpy).

    Examples:

      tritonscope grid sample:matmul_grouped -a M=1152 -a N=1152 -a K=1152
      -c BLOCK_SIZE_M=128 -c BLOCK_SIZE_N=128 -c BLOCK_SIZE_K=128 -c GROUP_SIZE_M=3 --wave 9

      tritonscope grid sample:matmul -a M=1152 -a N=1152 -a K=1152 --wave 9

      tritonscope grid sample:vector_add -a n_elements=98432

      tritonscope grid sample:vector_add -a n_elements=98432 --grid 'cdiv(n_elements, BLOCK_SIZE)'
    """
    from ...app.grid import grid as run_grid
    from ...core import launch_grid
    from .. import argtypes

    size = launch_grid.parse(grid_size) if grid_size else launch_grid.of_run(request.run_grid)
    with progress(f"running {request.file} on the interpreter"):
        result = run_grid(request, size, wave, argtypes.timeout(timeout))
    return result
