from __future__ import annotations

from typing import Annotated

import typer

from ..messages import progress
from ..options import (
    ArgOpt,
    ConfigOpt,
    ConstexprOpt,
    CtasOpt,
    DtypeOpt,
    JsonOpt,
    KernelOpt,
    MaxnregOpt,
    NoSpecializeOpt,
    StagesOpt,
    TargetOpt,
    TimeoutOpt,
    WarpsOpt,
    request_from,
    told,
)
from ..runner import command


@command()
def layout(
    text: Annotated[
        str | None,
        typer.Argument(metavar="LAYOUT", help="A TTGIR layout, e.g. '#ttg.blocked<{sizePerThread = [1, 4], ...}>'."),
    ] = None,
    shape: Annotated[str | None, typer.Option("--shape", metavar="AxB", help="Tensor shape, e.g. 64x64.")] = None,
    source: Annotated[
        str | None,
        typer.Option(
            "--from", metavar="FILE", help="Take the layout from this kernel's TTGIR (a path or sample:NAME)."
        ),
    ] = None,
    value: Annotated[
        str | None,
        typer.Option(
            "--value", metavar="NAME", help="With --from: the SSA value (a Python variable's name, e.g. row, smem)."
        ),
    ] = None,
    line: Annotated[
        int | None, typer.Option("--line", metavar="N", help="With --from: the first tensor made by Python line N.")
    ] = None,
    kernel: KernelOpt = None,
    constexpr: ConstexprOpt = None,
    arg: ArgOpt = None,
    target: TargetOpt = "auto",
    num_warps: WarpsOpt = None,
    num_stages: StagesOpt = None,
    num_ctas: CtasOpt = None,
    maxnreg: MaxnregOpt = None,
    dtype: DtypeOpt = None,
    config: ConfigOpt = None,
    no_specialize: NoSpecializeOpt = False,
    timeout: TimeoutOpt = 60.0,
    json_out: JsonOpt = False,
):
    """Draw which thread (lane and warp) holds each element of a tensor in a TTGIR layout.

    Uses Triton's own linear-layout conversion: blocked, NVIDIA MMA (v2, v3), dot-operand and
    slice layouts given as text. With --from a kernel (Triton or Gluon) and nothing more, lists
    every layout it uses with its Python lines, and each move through shared memory with its bank
    conflicts; --value or --line draws one, of any kind Triton's Gluon reads (linear, AMD MFMA/WMMA
    too); a shared one (swizzled, NVMMA, padded, linear) as the bank of each element.

    Examples:

      tritonscope layout --from kernels.py -k my_gluon_kernel -c BLOCK=64

      tritonscope layout --from kernels.py -k my_gluon_kernel -c BLOCK=64 --value smem

      tritonscope layout '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4],
      warpsPerCTA = [4, 1], order = [1, 0]}>' --shape 64x64

      tritonscope layout --from sample:softmax --value row

      tritonscope layout --from sample:matmul --line 35 --target sm80
    """
    from ...analysis.layouts import parse_shape
    from ...app.layout import layout as run_layout
    from .. import argtypes

    flags = {
        "file": source,
        "kernel": kernel,
        "constexpr": constexpr,
        "arg": arg,
        "target": target,
        "num_warps": num_warps,
        "num_stages": num_stages,
        "num_ctas": num_ctas,
        "maxnreg": maxnreg,
        "dtype": dtype,
        "config": config,
        "no_specialize": no_specialize,
    }
    request = told(request_from(flags)) if source is not None else None
    with progress("asking Triton for the layout"):
        result = run_layout(
            text, parse_shape(shape) if shape else None, request, value, line, argtypes.timeout(timeout)
        )
    return result
