from __future__ import annotations

from typing import Annotated

import typer

from ..app import command, emit, progress
from ..options import HtmlOpt, JsonOpt, KeepLocOpt, TimeoutOpt, variant_flags
from .output import write_page
from .render import terminal


@command()
@variant_flags
def passes(
    request,
    show: Annotated[
        str | None,
        typer.Option(
            "--show", metavar="N|NAME[#K]", help="What pass N (or every run of NAME, or its K-th run) changed."
        ),
    ] = None,
    full: Annotated[bool, typer.Option("--full", help="With --show: the whole IR after the pass.")] = False,
    changed: Annotated[bool, typer.Option("--changed", help="Only the passes that changed the IR.")] = False,
    llvm: Annotated[bool, typer.Option("--llvm", help="Also the LLVM-level passes (LLVM IR after each).")] = False,
    keep_loc: KeepLocOpt = False,
    timeout: TimeoutOpt = 600.0,
    html_out: HtmlOpt = None,
    json_out: JsonOpt = False,
):
    """Watch the compiler work: every MLIR pass in order, which changed the IR, and how.

    The compile runs in a worker process with Triton's IR dumps on (MLIR_ENABLE_DUMP), for this
    kernel only, with the same variant flags as dump.

    Examples:

      tritonscope passes sample:matmul

      tritonscope passes sample:matmul --show tritongpu-pipeline

      tritonscope passes sample:matmul --show 31 --full

      tritonscope passes sample:matmul --changed

      tritonscope passes sample:vector_add --target gfx942 --json
    """
    from ...app.passes import passes as run_passes
    from ...render.terminal.passes import PassesView
    from .. import argtypes

    with progress(f"running {request.file} through the compiler with IR dumps on"):
        result = run_passes(request, show, llvm, argtypes.timeout(timeout))
    if html_out is not None:
        from ...render.html import HtmlReport

        write_page(html_out, HtmlReport().render(result))
    if json_out:
        from ...render.json import JsonRenderer

        emit(JsonRenderer("passes", full=full), result)
        return
    emit(terminal(PassesView, False, only_changed=changed, full=full, keep_loc=keep_loc), result)
