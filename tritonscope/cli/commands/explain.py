from __future__ import annotations

from typing import Annotated

import typer

from ...core.errors import UsageError
from ..messages import progress
from ..options import JsonOpt, TimeoutOpt, WatchOpt, variant_flags
from ..runner import command
from .dump import _notices

WhatIfOpt = Annotated[
    bool,
    typer.Option(
        "--what-if/--no-what-if",
        help="Compile what the findings suggest (another --maxnreg, num_stages, argument value; at most 4 "
        "compiles) and say what it gives.",
    ),
]
GridOpt = Annotated[
    str | None,
    typer.Option(
        "--grid",
        metavar="X[,Y[,Z]]",
        help="The launch grid to estimate the whole launch's time for: sizes, or expressions of the arguments "
        "and constexprs ('cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)'). Default: a captured launch's, else the file's "
        "grid(meta).",
    ),
]
LiveOpt = Annotated[
    bool,
    typer.Option(
        "--registers/--no-registers",
        help="Read the registers live on each line from nvdisasm's life ranges (NVIDIA; one more nvdisasm run).",
    ),
]


@command()
@variant_flags
def explain(
    request,
    what_if: WhatIfOpt = True,
    registers: LiveOpt = True,
    compile_time: Annotated[
        bool,
        typer.Option(
            "--compile-time",
            help="Why the compile is slow: the time of each stage, and the operations each Python line has "
            "at TTIR, TTGIR and LLVM IR (an unrolled loop, a large tile). passes --time splits it by pass.",
        ),
    ] = False,
    grid: GridOpt = None,
    json_out: JsonOpt = False,
    watch: WatchOpt = False,
    timeout: TimeoutOpt = 300.0,
):
    """Why is this kernel slow? The cost of each Python line, then findings with causes and what to try.

    Each line of the kernel gets its machine instructions, global loads and stores with their width
    per thread, shared-memory traffic, matrix instructions, barriers, spills and layout conversions.
    Findings name the line, the evidence in the IR or the machine code, the cause, and a suggestion,
    compiled to check it where that is cheap. On NVIDIA, beside the counts, each line's share of
    the estimated time (the SASS's control codes, the waits charged to the line that waits, the
    occupancy), and the lines ranked by it: `line 23 waits on the loads of lines 21, 22`. Then the
    whole launch's time for its grid (--grid, a captured launch's, or the file's grid(meta)): its waves,
    DRAM and L2 traffic and tensor-core work on the target's GPU, and which of them bounds it.

    Examples:

      tritonscope explain sample:vector_add -a n_elements=4099

      tritonscope explain sample:matmul --target sm80 --maxnreg 64

      tritonscope explain my.py -k kern -c BLOCK=128 --json

      tritonscope explain sample:matmul --compile-time

      tritonscope explain kernels.py -k softmax_kernel --no-what-if --watch   (again on every save)

      tritonscope explain sample:softmax --json     (the estimate under "time", per line)

      tritonscope explain sample:matmul_autotune -t h200 --grid 'cdiv(M,BLOCK_SIZE_M)*cdiv(N,BLOCK_SIZE_N)'
    """
    from ...app.explain import explain as run_explain
    from ...core import launch_grid

    spec = launch_grid.parse(grid) if grid is not None else launch_grid.of_run(request.run_grid)
    target = request.target_info
    if spec is not None and target is not None and target.backend != "cuda":  # said, rather than ignored
        raise UsageError(
            f"--grid: {target.name} gets no launch time (the per-warp model reads NVIDIA's machine code)",
            hint="drop --grid for an AMD target, or name an NVIDIA one (-t h200)",
        )
    if watch:
        from ..watch import watched

        return watched(request, lambda: run_explain(request, what_if, registers, compile_time, spec), {})
    with progress(f"compiling {request.file}"):
        result = run_explain(request, what_if=what_if, live=registers, compile_time=compile_time, grid=spec)
    _notices(result.compilation, request)
    return result
