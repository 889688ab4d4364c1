from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ...core.errors import UsageError
from ..messages import progress, say
from ..options import ClusterOpt, JsonOpt, TimeoutOpt, variant_flags
from ..output import Output
from ..runner import command
from .check_files import written_files

BudgetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--budget",
        "-b",
        metavar="FIGURE<=VALUE",
        help="A limit the kernel must keep, e.g. spills=0, 'registers<=128', 'global_load_bits>=128', "
        "'occupancy>=50%', 'shared<=96KiB'. Figures: registers, spills, local_bytes, shared, occupancy, "
        "global_load_bits, global_store_bits, instructions, conversion_bytes, findings; 'line 33 <= 40%': "
        "a line's share of explain's estimated time (NVIDIA). Repeatable.",
    ),
]
BaselineOpt = Annotated[
    Path | None,
    typer.Option(
        "--baseline",
        metavar="REPORT.json|DIR0/",
        help="A saved `dump --json` report (or, checking a capture, another capture): fail when a figure gets worse.",
    ),
]
UpdateOpt = Annotated[
    bool, typer.Option("--update-baseline", help="Write the baseline reports (of --baseline or the project's).")
]
ProjectOpt = Annotated[
    Path | None,
    typer.Option("--project", metavar="PYPROJECT", help="Check the [tool.tritonscope] entries of this file."),
]
JunitOpt = Annotated[Path | None, typer.Option("--junit", metavar="FILE.xml", help="Also write a JUnit XML report.")]
JobsOpt = Annotated[int | None, typer.Option("--jobs", "-j", help="Compile this many entries at once.")]
FitOpt = Annotated[
    str | None,
    typer.Option(
        "--fit",
        metavar="LIST",
        help="Checking a capture: compile each launched kernel again for these targets (sm86,sm89) and fail "
        "where it would not fit (OutOfResources at launch) or not compile.",
    ),
]

NoCompilesAfterOpt = Annotated[
    str | None,
    typer.Option(
        "--no-compiles-after",
        metavar="MARK",
        help="Checking a capture: fail on any compile after the program passed MARK (tritonscope.mark('warmup')), "
        "naming the kernel, the cause and the launch's line; the budget compiles_after_MARK=0.",
    ),
]


@command()
@variant_flags(file_optional=True)
def check(
    request,
    budget: BudgetOpt = None,
    baseline: BaselineOpt = None,
    update_baseline: UpdateOpt = False,
    project: ProjectOpt = None,
    junit: JunitOpt = None,
    jobs: JobsOpt = None,
    fit: FitOpt = None,
    no_compiles_after: NoCompilesAfterOpt = None,
    json_out: JsonOpt = False,
    timeout: TimeoutOpt = 300.0,
    cluster: ClusterOpt = None,
):
    """Hold kernels to budgets, for CI: exit 1 listing each broken budget, 0 when all hold.

    A budget names a figure, a comparison and a limit; a broken one is listed with the finding
    of `explain` behind it. --baseline fails when a figure (registers, spills, local memory,
    shared memory, occupancy, the narrowest global access) gets worse than in a saved report.
    Without FILE, the entries of [tool.tritonscope] in ./pyproject.toml (or --project) are
    compiled in parallel, each in its own worker. Exit 2 for bad usage or a bad entry.

    Examples:

      tritonscope check sample:vector_add -a n_elements=4096 --budget spills=0 --budget 'global_load_bits>=128'

      tritonscope check sample:matmul -t sm80 --budget 'registers<=128' --budget 'occupancy>=25%'

      tritonscope check sample:matmul -t sm80 --baseline base.json --update-baseline     (save the figures)

      tritonscope check sample:matmul -t sm80 -w 4 --baseline base.json                 (fail if one got worse)

      tritonscope check sample:matmul --budget 'line 35 <= 60%'     (line 35's share of the estimated time)

      tritonscope check --project pyproject.toml --junit check.xml

    Given a capture folder (`trace -o DIR`), every kernel compile in it is held to the budgets,
    read from its artifacts (nothing compiled); --baseline DIR0/ holds each one to its
    counterpart in another capture, paired as `diff DIR0/ DIR/` pairs them:

      tritonscope check after/ --budget spills=0 --baseline before/ --junit report.xml

      tritonscope check after/ --budget 'line 33 <= 40%'     (every kernel's line 33, as explain estimates it)

      tritonscope check after/ --fit sm86,sm89     (fail on a launched kernel that would not fit an L4)

      tritonscope check run/ --no-compiles-after warmup     (fail on a compile after tritonscope.mark("warmup"))

      tritonscope check --cluster ray://head:10001     (every entry, compiled on a Ray cluster)
    """
    from ...app.check import check as run_check
    from ...app.check import no_compiles_after as no_compiles_after_budget
    from ...app.diff import worker_count
    from ...core.source import CaptureFolder, refuse_missing
    from .. import argtypes
    from .capture_check import check_capture

    gate = [no_compiles_after_budget(no_compiles_after)] if no_compiles_after is not None else []
    budgets: list = [*(budget or ()), *gate]
    if request is not None:  # a capture's budget would be refused first, as a kernel file's
        refuse_missing(request.source, "give a kernel file, or a capture folder made by `tritonscope trace -o DIR`")
    if request is not None and isinstance(request.source, CaptureFolder):
        return check_capture(request, budgets, baseline, update_baseline, project, junit, jobs, timeout, fit)
    if fit is not None:
        raise UsageError("--fit checks a capture folder's kernels; for a kernel file: tritonscope fit FILE --targets")
    entries = _entries(request, budgets, baseline, project, update_baseline)
    workers, notice = worker_count(jobs)
    if notice:
        say(notice, "yellow")
    with progress(f"checking {len(entries)} kernel{'s' if len(entries) > 1 else ''}"):
        result = run_check(entries, workers, argtypes.timeout(timeout), baselines=not update_baseline)
    return Output(result, files=written_files(result, update_baseline, junit))


def _entries(request, budget, baseline, project, update):
    from ...core.errors import UsageError
    from ...core.model import CheckEntry
    from .. import argtypes
    from ..project import entries

    extra = argtypes.budgets(budget)
    if request is None:
        if baseline is not None:
            raise UsageError("--baseline names one kernel's report: give a FILE, or `baseline` in each entry")
        found = entries(project or Path("pyproject.toml"))
        for notice in dict.fromkeys(e.request.target_notice for e in found if e.request.target_notice):
            say(notice, "dim")  # once, however many entries it is the notice of
        return [CheckEntry(e.name, e.request, (*e.budgets, *extra), e.baseline) for e in found]
    if project is not None:
        raise UsageError("give a FILE or --project, not both")
    if not extra and baseline is None:
        raise UsageError("nothing to check: give --budget FIGURE<=VALUE or --baseline REPORT.json")
    if update and baseline is None:
        raise UsageError("--update-baseline needs --baseline REPORT.json: where to write it")
    name = request.file + (f" -k {request.kernel}" if request.kernel else "")
    return [CheckEntry(name, request, extra, str(baseline) if baseline else None)]
