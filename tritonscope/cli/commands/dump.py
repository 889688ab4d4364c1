from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..messages import progress, say
from ..options import JsonOpt, KeepLocOpt, LineOpt, LinesOpt, TimeoutOpt, WatchOpt, WrapOpt, variant_flags
from ..output import Folder, Output
from ..runner import command

StageOpt = Annotated[
    str | None,
    typer.Option(
        "--stage",
        "--stages",
        metavar="LIST",
        help="Stages to show, comma-separated: source, ttir, ttgir, llir, ptx, sass (NVIDIA) / amdgcn (AMD). "
        "A @gluon.jit kernel has no ttir; from Triton 3.9 it has glir (its own IR) before ttgir. Default: all.",
    ),
]


@command()
@variant_flags
def dump(
    request,
    stage: StageOpt = None,
    side_by_side: Annotated[
        bool, typer.Option("--side-by-side", help="Show the two stages given with --stage in columns.")
    ] = False,
    json_out: JsonOpt = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", metavar="DIR", help="Write each stage, the binary and report.json into DIR."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="With --out: replace a DIR tritonscope wrote before.")] = False,
    line: LineOpt = None,
    lines: LinesOpt = None,
    annotate: Annotated[
        bool, typer.Option("--annotate", help="Prefix every IR line with the Python line it came from.")
    ] = False,
    keep_loc: KeepLocOpt = False,
    control: Annotated[
        bool,
        typer.Option(
            "--control",
            help="Beside each SASS instruction its control code: the scoreboards it waits on (B), sets "
            "on read (R) and write (W), the yield hint (Y) and stall cycles (S); with --json, per "
            "instruction with the instructions each wait waits for (NVIDIA).",
        ),
    ] = False,
    wrap: WrapOpt = False,
    watch: WatchOpt = False,
    timeout: TimeoutOpt = 300.0,
):
    """Compile a kernel and show every stage, highlighted, with its resource figures.

    Examples:

      tritonscope dump sample:vector_add

      tritonscope dump kernels.py -k softmax_kernel -c BLOCK_SIZE=1024 --dtype fp16 --target sm80

      tritonscope dump kernels.py -k matmul_kernel --dtype bf16 -a M=4096 -w 8 -s 3 --stage ttgir,ptx --side-by-side

      tritonscope dump sample:matmul --json > report.json

      tritonscope dump sample:matmul -o out/

      tritonscope dump sample:matmul --line 35          (what line 35 became, in every stage)

      tritonscope dump kernels.py -k softmax_kernel --stage ttgir --watch   (again on every save)

      tritonscope dump sample:matmul --stage sass --control

      tritonscope dump 06-fused-attention.py -k _attn_bwd --from-run -t sm90   (as its test_op launches it)

      tritonscope dump sample:matmul -t sm103 --stage sass   (Triton 3.6: pip install "tritonscope[sass]")
    """
    from ...app.dump import dump as run_dump
    from ...core.errors import UsageError
    from .. import argtypes

    stages = argtypes.stages(stage)
    if side_by_side and (stages is None or len(stages) != 2):
        raise UsageError("--side-by-side needs exactly two stages, e.g. --stage ttgir,ptx")
    files = (Folder(out, force, (request.file,)).checked(),) if out is not None else ()  # before the compile
    options = {"keep_loc": keep_loc, "annotate": annotate, "side_by_side": side_by_side, "wrap": wrap}
    shown_lines = argtypes.line_range(line, lines)
    if watch:
        return _watch(out, lambda: run_dump(request, stages, shown_lines, control), request, options)
    with progress(f"compiling {request.file}"):
        result = run_dump(request, stages, shown_lines, control)
    _notices(result.compilation, request)
    return Output(result, options, shown=out is None or json_out, files=files)  # -o alone: the files are the output


def _watch(out, make, request, options) -> None:
    """--watch: drawn again on every save (cli/watch.py); its output is the terminal's, never files."""
    from ...core.errors import UsageError
    from ..watch import watched

    if out is not None:
        raise UsageError("--watch draws again on every save; it does not go with -o/--out")
    watched(request, make, options)


def _notices(compilation, request) -> None:
    """The compilation's notices, but the target's: said where the request was made (options.told)."""
    for notice in compilation.notices:
        if notice != request.target_notice:
            say(notice, "dim")
