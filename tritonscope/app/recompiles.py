"""`tritonscope recompiles DIR/`: for every kernel of a capture compiled more than once, its variants
and what differs between them in the kernel's own terms (analysis/recompile_causes.py), each compile's
time and the program's line that launched it; torch.compile's frame compiles with the guards that
failed; with `--after MARK`, the compiles after the program passed the mark. Read from the capture's
logs (captures/timeline.py): nothing is compiled, unless the fixes are proved (app/recompile_fixes.py).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ..analysis.recompile_causes import AGAIN, ALIGNMENT, CANDIDATE, FIRST, SOURCE, Cause, CompileStep, history
from ..analysis.specialization import config_fields, generated_by_torch, launch_values, specialization
from ..captures.entries import as_published
from ..captures.recorded import def_line
from ..captures.timeline import Timeline, read_timeline
from ..core.errors import UsageError
from ..core.source import short_path
from ..results.recompiles import KernelHistory, Launch, RecompilesResult, Variant
from .recompile_torch import torch_recompiles


def recompiles(folder: Path, after: str | None = None, fixes: bool = True, prove: bool = False) -> RecompilesResult:
    """The capture's recompiles (with AFTER, every compile after the mark AFTER, and the kernels they
    belong to), each with a fix per cause; with PROVE, each fix compiled to show it holds."""
    timeline = read_timeline(folder)
    _check_mark(timeline, after)
    histories = [h for h in kernel_histories(timeline) if _shown(h, after)]
    if fixes:
        from .recompile_fixes import with_fixes

        histories = with_fixes(histories, timeline, prove)
    torch = tuple(t for t in torch_recompiles(timeline, fixes, after) if after is None or after in t.marks_passed)
    notes = list(timeline.problems[:8])
    if not timeline.timed:
        notes.append("the capture's records carry no times (an older trace): compiles are not placed against marks")
    marks = tuple(f"{m['mark']} at {_where(m.get('call_site'))}" for m in timeline.marks)
    binaries = len({str(r.get("hash")) for r in timeline.compiles})
    return RecompilesResult(
        str(folder), after, tuple(histories), torch, len(timeline.compiles), marks, tuple(notes), binaries
    )


def _check_mark(timeline: Timeline, after: str | None) -> None:
    if after is not None and not after.strip():  # as check's --no-compiles-after refuses it (h20b)
        raise UsageError("--after needs a mark's name: the one the program passes to tritonscope.mark")
    if after is not None:
        timeline.passed(after)


def _shown(kernel: KernelHistory, after: str | None) -> bool:
    if after is not None:
        return any(after in v.marks_passed for v in kernel.variants)
    return len(kernel.variants) > 1


def kernel_histories(timeline: Timeline) -> list[KernelHistory]:
    """Every kernel of the capture with each of its compiles, in the order the program made them."""
    by_kernel: dict[tuple[str, str | None], list[tuple[int, dict]]] = {}
    for index, record in enumerate(timeline.compiles):
        by_kernel.setdefault((str(record.get("name")), _frame_of(timeline, record)), []).append((index, record))
    launches = timeline.launches_by_hash()
    shared = {name for name, frame in by_kernel if frame is not None and sum(n == name for n, _ in by_kernel) > 1}
    found = []
    for (name, _frame), compiles in by_kernel.items():
        first = compiles[0][1]
        # two compiled functions' kernels of one name are two kernels: each said with its function
        function = _torch_compile_before(timeline, first) if name in shared else None
        fields = config_fields(first, timeline.candidates(name))
        steps = history([(i, r, specialization(r)) for i, r in compiles], launches, fields)
        variants = tuple(_variant(timeline, step, compiles, launches) for step in steps)
        found.append(
            KernelHistory(
                name,
                as_published(first["file"], timeline.folder) if first.get("file") else None,  # not the staging folder
                def_line(first),
                variants,
                generated=generated_by_torch(first),
                generated_for=_function_said(function) if function else None,
            )
        )
    return found


def _function_said(frame: dict) -> str:
    """A compiled function by name and where it is defined (two lambdas are told apart)."""
    where = f" at {short_path(frame['file'])}:{frame['line']}" if frame.get("file") and frame.get("line") else ""
    return f"`{frame['function']}`{where}"


def _made_again(step: CompileStep, record: dict, compiles) -> tuple[Cause, ...]:
    """The same binary compiled again in the process that made it: the kernel object was made again (a
    @triton.jit inside a function each step calls), and each new one looks Triton's cache up (h20b)."""
    if step.role != AGAIN or generated_by_torch(record):
        return ()
    first = compiles[step.compared_with - 1][1] if step.compared_with else {}  # the step it repeats, by number
    if first.get("pid") is None or first.get("pid") != record.get("pid"):
        return ()  # another process (a worker, a later run) has a cache of its own to fill
    said = "the same kernel made again in the process that compiled it (a @triton.jit made inside a function "
    said += "called each time?): each new kernel object looks Triton's cache up again"
    return (Cause(SOURCE, None, "", "", said),)


def _frame_of(timeline: Timeline, record: dict) -> str | None:
    """The torch.compile frame (`compile_id` 3/1's 3) whose compile generated the kernel; None for one
    the program defines. Its recompiles generate the kernel anew (one history); another function's
    kernel of the same name (two functions' `x.sin()`) is another kernel (h20b: said a recompile)."""
    if not generated_by_torch(record):
        return None
    frame = _torch_compile_before(timeline, record)
    return str(frame.get("compile_id", "")).split("/")[0] if frame else None


def _variant(timeline: Timeline, step: CompileStep, compiles, launches: dict[str, list[dict]]) -> Variant:
    record = next(r for i, r in compiles if i == step.index)
    seconds = record.get("compile_us")
    torch_compile = _torch_compile_before(timeline, record) if generated_by_torch(record) else None
    launch = _launch(record, launches.get(step.hash, []), step, timeline.folder)
    if launch is not None and step.role == CANDIDATE and step.compared_with:
        launch = dataclasses.replace(
            launch, values=_with_options(launch.values, record, compiles[step.compared_with - 1][1])
        )
    causes = step.causes + _made_again(step, record, compiles)
    if torch_compile is not None:
        compile_id = str(torch_compile.get("compile_id", ""))
        site = torch_compile.get("call_site") or {}
        launch = Launch(site.get("file"), site.get("line"), f"torch.compile {compile_id}") if site else launch
        causes = tuple(_generated(c, torch_compile) for c in causes)
    return Variant(
        number=step.number,
        hash=step.hash,
        role=step.role,
        compared_with=step.compared_with,
        causes=causes,
        specialization=step.specialization.text(),
        compile_seconds=seconds / 1e6 if isinstance(seconds, (int, float)) else None,
        launch=launch,
        marks_passed=timeline.marks_before(record),
        torch_compile=str(torch_compile.get("compile_id")) if torch_compile is not None else None,
        at=_time(record),
    )


def _time(record: dict) -> float | None:
    when = record.get("time")
    return float(when) if isinstance(when, (int, float)) else None


def _generated(cause: Cause, torch_compile: dict) -> Cause:
    """A generated kernel whose source changed: torch.compile compiled its function again (its guards say why)."""
    if cause.kind != SOURCE:
        return cause
    compile_id = torch_compile.get("compile_id")
    said = f"torch.compile compiled `{torch_compile['function']}` again ({compile_id}) and generated it anew"
    return dataclasses.replace(cause, said=said)


def _launch(record: dict, launches: list[dict], step: CompileStep, folder: Path) -> Launch | None:
    """The first recorded launch of the compile after it was made: the launch that made it."""
    when = record.get("time")
    if isinstance(when, (int, float)):
        launches = [x for x in launches if x.get("time", when) >= when] or launches
    if not launches:
        return None
    site = launches[0].get("call_site") or {}
    file = as_published(site["file"], folder) if site.get("file") else None  # Inductor's code, in the capture
    return Launch(file, site.get("line"), _values(launches[0], step))


def _with_options(values: str, record: dict, first: dict) -> str:
    """An autotune candidate's values with the options it sets apart from the config it is compared with:
    two configs of BLOCK=4096 at 8 and 16 warps read alike without them."""
    mine, theirs = record.get("options") or {}, first.get("options") or {}
    differ = [f"{name}={value}" for name, value in mine.items() if theirs.get(name) != value]
    return ", ".join(part for part in (values, *differ) if part)


def _values(launch: dict, step: CompileStep) -> str:
    """The launch's values behind the compile's causes (or, for a first compile, its integers)."""
    values = launch_values(launch)
    causes = step.causes if step.role != FIRST else ()
    wanted = [_value_of(c, n, values) for c in causes for n in (c.made_from, c.param) if n]
    if not wanted:
        wanted = [p.name for p in step.specialization.params if isinstance(values.get(p.name), int)][:4]
    return ", ".join(f"{n}={values[n]}" for n in dict.fromkeys(wanted) if n in values and values[n] is not None)


def _value_of(cause: Cause, name: str, values: dict) -> str:
    """The launch's value a cause is about: a tensor's storage offset for its alignment (its dtype read
    as the cause, h25a), its dtype for the rest, else the argument itself."""
    if cause.kind == ALIGNMENT and f"{name}.storage_offset" in values:
        return f"{name}.storage_offset"
    return f"{name}.dtype" if f"{name}.dtype" in values else name


def _torch_compile_before(timeline: Timeline, record: dict) -> dict | None:
    """The torch.compile frame compile a generated kernel's compile belongs to: the last one before it."""
    when = record.get("time")
    return timeline.torch_compile_before(when) if isinstance(when, (int, float)) else None


def _where(site: dict | None) -> str:
    return f"{short_path(site['file'])}:{site['line']}" if site else "(unknown line)"
