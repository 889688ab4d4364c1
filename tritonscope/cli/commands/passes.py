from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from ..installs import ensure_releases
from ..messages import progress
from ..options import ClusterOpt, HtmlOpt, JsonOpt, KeepLocOpt, TimeoutOpt, variant_flags
from ..output import File, Output
from ..runner import command

if TYPE_CHECKING:  # the command's import stays light: --help loads no result module
    from ...results.passes import PassesComparison


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
    time: Annotated[
        bool,
        typer.Option(
            "--time",
            help="Where the compile's time went: each MLIR pass, LLVM step and ptxas with its wall time and the "
            "IR's size before and after; the slowest marked (a second compile, without dumps, timed).",
        ),
    ] = False,
    vary: Annotated[
        list[str] | None,
        typer.Option(
            "--vary",
            metavar="NAME=A,B",
            help="Compare two pipelines (two Triton releases, two num_warps ...) and show the first pass whose "
            "output differs.",
        ),
    ] = None,
    timeout: TimeoutOpt = 600.0,
    cluster: ClusterOpt = None,
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

      tritonscope passes sample:matmul --time

      tritonscope passes sample:vector_add --target gfx942 --json

      tritonscope passes sample:softmax --vary triton=3.6.0,3.9.0

      tritonscope passes sample:softmax --vary num_warps=4,8 --cluster auto
      (on a running Ray cluster: ray start --head)
    """
    from ...app.passes import passes as run_passes
    from .. import argtypes

    if vary:
        return _compare(request, vary, argtypes.timeout(timeout), (show, full, changed, llvm, html_out, time))

    with progress(f"running {request.file} through the compiler with IR dumps on" + (", and timed" if time else "")):
        result = run_passes(request, show, llvm, argtypes.timeout(timeout), page=html_out is not None, timed=time)
    page = (File(html_out, "html", "--html", (request.file,)),) if html_out is not None else ()
    return Output(result, {"only_changed": changed, "full": full, "keep_loc": keep_loc}, files=page)


def _compare(request, vary: list[str], timeout: float, single_only: tuple) -> PassesComparison:
    """`passes --vary NAME=A,B`: the two pipelines and where they first part ways."""
    from ...app.passes import compare
    from ...app.walk.sweep import Axis
    from ...core.errors import UsageError
    from .. import argtypes

    if any(single_only):
        raise UsageError("--show, --full, --changed, --llvm, --time and --html show one pipeline: leave out --vary")
    axes = [Axis(name, values) for name, values in argtypes.axes(vary)]
    ensure_releases(axes)
    with progress(f"running {request.file} through two compilers with IR dumps on"):
        result = compare(request, axes, timeout)
    return result
