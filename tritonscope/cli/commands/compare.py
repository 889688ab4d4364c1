from __future__ import annotations

from typing import Annotated

import typer

from ..messages import progress
from ..options import JsonOpt, KeepLocOpt, LineOpt, LinesOpt, TimeoutOpt, WrapOpt, variant_flags
from ..output import Output
from ..runner import command
from .dump import _notices


@command()
@variant_flags
def compare(
    request,
    stages: Annotated[
        str | None,
        typer.Option(
            "--stage",
            "--stages",
            metavar="LIST",
            help="Two or three stages, comma-separated (default source,ttgir,sass; amdgcn on AMD).",
        ),
    ] = None,
    line: LineOpt = None,
    lines: LinesOpt = None,
    keep_loc: KeepLocOpt = False,
    wrap: WrapOpt = False,
    json_out: JsonOpt = False,
    timeout: TimeoutOpt = 300.0,
):
    """Show 2 or 3 stages in columns, aligned by Python line: what each line of the kernel became.

    Examples:

      tritonscope compare sample:matmul --stage source,ttgir,ptx

      tritonscope compare my.py -k kern --stage ttgir,sass --line 42
    """
    from ...app.dump import compare as run_compare
    from .. import argtypes

    chosen = argtypes.stages(stages, "--stage")
    with progress(f"compiling {request.file}"):
        result = run_compare(request, chosen, argtypes.line_range(line, lines))
    _notices(result.compilation, request)
    return Output(result, {"keep_loc": keep_loc, "wrap": wrap})
