from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..messages import progress
from ..options import KeepLocOpt, TimeoutOpt, variant_flags
from ..output import File, Output
from ..runner import command
from .dump import _notices


@command()
@variant_flags
def report(
    request,
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            "--html",
            metavar="FILE.html",
            help="Where to write the report (--html FILE as in diff and passes).",
        ),
    ],
    stage: Annotated[
        str | None,
        typer.Option(
            "--stage",
            "--stages",
            metavar="LIST",
            help="Stages shown at first (the page can show the others). Default: all.",
        ),
    ] = None,
    keep_loc: KeepLocOpt = False,
    timeout: TimeoutOpt = 300.0,
):
    """Write a self-contained HTML report: source beside every stage, lines linked, resources.

    One file with its CSS and script inline: it opens with no network, and can be attached to a
    bug report. Pointing at a Python line lights up what it became in every stage. The cost of
    each line and the findings are `explain`'s, what-ifs compiled.

    Examples:

      tritonscope report sample:fused_attention -o attention.html

      tritonscope report my.py -k kern -c BLOCK=128 --target sm80 -o kern.html
    """
    from ...app.explain import report as run_report
    from .. import argtypes

    with progress(f"compiling {request.file}"):
        result = run_report(request, argtypes.stages(stage))
    _notices(result.explained.compilation, request)
    page = File(out, "html", "-o", (request.file,), {"keep_loc": keep_loc})
    return Output(result, shown=False, files=(page,))  # the page is the output
