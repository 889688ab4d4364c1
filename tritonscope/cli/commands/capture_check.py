"""`check DIR/`: a capture folder's every kernel compile held to budgets and a baseline capture.
Not a command of its own: `check` hands a folder here."""

from __future__ import annotations

from pathlib import Path

from ...core.errors import UsageError
from ...core.model import VariantRequest
from ..messages import progress, say
from ..output import Output
from .check_files import written_files


def check_capture(request: VariantRequest, budget, baseline, update: bool, project, junit, jobs, timeout, fit=None):
    from ...app import capture_check
    from ...app.diff import worker_count
    from .. import argtypes

    budgets = argtypes.budgets(budget)
    targets = argtypes.target_list(fit, "--fit") if fit is not None else ()
    _refuse(request, budgets, baseline, update, project, targets)
    workers, notice = worker_count(jobs)
    if notice:
        say(notice, "yellow")
    with progress(f"checking the kernels of {request.file}"):
        result = capture_check.check_capture(
            Path(request.file), tuple(budgets), baseline, workers, argtypes.timeout(timeout), targets
        )
    return Output(result, files=written_files(result, False, junit))


def _refuse(request: VariantRequest, budgets, baseline, update: bool, project, fit: tuple[str, ...]) -> None:
    if request != VariantRequest(file=request.file, source=request.source):
        raise UsageError(f"{request.file} is a capture: variant flags do not apply to its kernels")
    if project is not None:
        raise UsageError("give a capture folder or --project, not both")
    if update:
        raise UsageError(
            "--update-baseline does not apply to a capture: the baseline is a capture folder",
            hint="commit the capture itself (trace -o baseline/) as the baseline",
        )
    if baseline is not None and not baseline.is_dir():
        raise UsageError(f"--baseline {baseline}: checking a capture, the baseline is a capture folder too")
    if not budgets and baseline is None and not fit:
        raise UsageError("nothing to check: give --budget FIGURE<=VALUE, --baseline DIR0/ or --fit TARGETS")
