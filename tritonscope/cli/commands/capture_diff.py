"""`diff` given capture folders: `diff DIR1/ DIR2/`, `diff DIR1/ DIR2/ -k NAME --stage sass` and
`diff DIR/ --vary triton=A,B`. Not a command of its own: `diff` hands a folder here."""

from __future__ import annotations

from pathlib import Path

from ...core.errors import UsageError
from ...core.model import VariantRequest
from ...core.source import CaptureFolder
from ..messages import progress
from ..output import Output


def wants_captures(request: VariantRequest, other: str | None, html_out=None, configs: bool = False) -> bool:
    """A folder as FILE (not DIR/:NAME) means captures; a second folder needs the first."""
    if isinstance(request.source, CaptureFolder):
        if html_out is not None or configs:
            raise UsageError(f"{request.file} is a capture: --html and --configs are for a kernel file's variants")
        return True
    if other is not None:
        raise UsageError(
            f"a second argument ({other}) is only for comparing two capture folders: {request.file} is not one"
        )
    return False


def capture_diff(
    request: VariantRequest,
    other: str | None,
    vary: list[str] | None,
    stage: str | None,
    jobs: int,
    timeout: float,
    side_by_side: bool,
) -> object:
    from ...app.capture_diff import diff_captures, kernel_diff
    from .. import argtypes

    _refuse_variant_flags(request)
    axes = argtypes.axes(vary)
    if other is None:
        if [name for name, _ in axes] != ["triton"] or len(axes[0][1]) < 2:
            raise UsageError(
                f"{request.file} is a capture: give a second one (diff DIR1/ DIR2/) or --vary triton=A,B",
                hint="--vary over a capture takes only triton= (each captured kernel compiled under each release)",
            )
        return _vary(request.file, axes[0][1], jobs, timeout)
    if axes:
        raise UsageError("--vary does not apply to two captures: give one capture with --vary triton=A,B")
    if request.kernel:
        result = kernel_diff(Path(request.file), Path(other), request.kernel, argtypes.stages(stage))
        return Output(result, {"side_by_side": side_by_side})
    with progress("reading the captures"):
        return diff_captures(Path(request.file), Path(other), jobs, timeout)


def _vary(folder: str, wanted, jobs: int, timeout: float):
    from ...app.capture_diff import vary_releases
    from ...app.walk.sweep import Axis
    from ..installs import ensure_releases

    ensure_releases([Axis("triton", tuple(wanted))])
    with progress(f"compiling every captured kernel under {len(wanted)} releases"):
        return vary_releases(Path(folder), tuple(wanted), jobs, timeout)


def _refuse_variant_flags(request: VariantRequest) -> None:
    bare = VariantRequest(file=request.file, kernel=request.kernel, source=request.source)
    given = [name for name, value in vars(request).items() if value != getattr(bare, name) and name != "target"]
    if given or request.target not in ("auto", None):
        raise UsageError(
            f"{request.file} is a capture: its kernels are compiled as they were; "
            f"variant flags ({', '.join(given) or 'target'}) do not apply"
        )
