"""`tritonscope check`: budgets on a kernel's figures, and a baseline they may not get worse than.

Each entry (a kernel variant, its budgets, its baseline) is compiled and explained without
what-ifs; a budget that does not hold, or a figure worse than the baseline's, is listed with
the finding behind it. Many entries (a project's `[tool.tritonscope]`) compile in isolated
workers, as `diff`'s variants do: one that fails, crashes or hangs fails alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..analysis import access_widths, instruction_mix, linemap
from ..analysis import findings as kinds
from ..analysis.access_widths import LineMap, Stages
from ..analysis.findings import Finding
from ..core import fileio, schemas
from ..core.errors import TritonscopeError, UsageError
from ..core.model import Budget, CheckEntry, Compilation
from ..core.quantities import count, size_exact
from ..core.status import ExitStatus
from ..core.targets import Target, named
from ..isolate import pool, task
from ..results.check import LAUNCH, Broken, CheckResult, EntryOutcome
from ..results.explain import ExplainResult
from .explain import explain_compilation
from .walk.prepare import compile_request


@dataclass(frozen=True)
class Figure:
    name: str
    meaning: str
    better: Literal["lower", "higher"]
    findings: tuple[str, ...] = ()  # the kinds of finding that explain it


FIGURES = {
    f.name: f
    for f in (
        Figure("registers", "registers (AMD: VGPRs) per thread", "lower", (kinds.SPILLS, kinds.OCCUPANCY)),
        Figure("spills", "spilled words (AMD: registers) per thread", "lower", (kinds.SPILLS,)),
        Figure("local_bytes", "local memory and stack per thread, bytes", "lower", (kinds.SPILLS,)),
        Figure("shared", "shared memory (LDS) per block, bytes", "lower", (kinds.SHARED_LIMIT, kinds.OCCUPANCY)),
        Figure("occupancy", "percent of a multiprocessor's warps resident", "higher", (kinds.OCCUPANCY,)),
        Figure(
            "global_load_bits",
            "the narrowest global load or async copy, bits per thread (a scalar's left out)",
            "higher",
            (kinds.NARROW,),
        ),
        Figure(
            "global_store_bits",
            "the narrowest global store, bits per thread (a scalar's left out)",
            "higher",
            (kinds.NARROW,),
        ),
        Figure("instructions", "machine instructions", "lower"),
        Figure("conversion_bytes", "bytes layout conversions move through shared memory", "lower", (kinds.CONVERSION,)),
        Figure("findings", "findings of `explain`", "lower"),
    )
}
COMPARED = ("registers", "spills", "local_bytes", "shared", "occupancy", "global_load_bits", "global_store_bits")


LINE = "line "  # a budget on a line's share of the estimated time: `line 33`
COMPILES_AFTER = "compiles_after_"  # a capture's budget: its compiles after a mark (`compiles_after_warmup=0`)
_BUDGET = re.compile(r"^\s*(line\s*\d+|[A-Za-z_]\w*)\s*(<=|>=|==|=|<|>)\s*(\d+(?:\.\d+)?)\s*(%|KiB|kib|KB|kb|B)?\s*$")
_LINE = re.compile(r"^line\s*(\d+)$")
_BYTES = ("shared", "local_bytes", "conversion_bytes")


def budgets(items: Sequence[str | Budget] | None, where: str = "--budget") -> tuple[Budget, ...]:
    """FIGURE<=VALUE, FIGURE>=VALUE, FIGURE=VALUE...: `registers<=128`, `occupancy>=50%`, `shared<=96KiB`;
    `line 33 <= 40%`: line 33's share of the estimated time (explain's). Every front end's form of a
    budget: the command line's --budget, the agent server's budgets."""
    found = []
    for item in items or ():
        if isinstance(item, Budget):  # made whole (--no-compiles-after MARK: a mark's name is any text)
            found.append(item)
            continue
        match = _BUDGET.match(str(item))
        names = ", ".join(FIGURES) + ", line N, compiles_after_MARK (a capture)"
        if not match:
            raise UsageError(f"{where} expects FIGURE<=VALUE (or >=, <, >, =), got '{item}'. Figures: {names}")
        figure, op, number, unit = match.groups()
        line = _LINE.match(figure)
        if line and unit not in (None, "%"):
            raise UsageError(f"{where} {item}: a line's budget is its share of the estimated time, in %")
        if line:
            figure = f"{LINE}{int(line.group(1))}"
        elif figure.startswith(COMPILES_AFTER) and figure != COMPILES_AFTER:
            if unit:
                raise UsageError(f"{where} {item}: a count of compiles has no unit")
        elif figure not in FIGURES:
            raise UsageError(f"{where} {item}: no figure named '{figure}'. Figures: {names}")
        elif unit == "%" and figure != "occupancy" or unit and unit != "%" and figure not in _BYTES:
            raise UsageError(f"{where} {item}: {figure} is not measured in {unit}")
        elif figure == "occupancy" and unit is None and 0 < float(number) < 1:
            # a fraction written for a percentage: `occupancy>=0.8` would hold at 1% occupancy
            percent = f"{float(number) * 100:g}%"
            raise UsageError(
                f"{where} {item}: occupancy is in percent; write {figure}{op}{percent} (or {number}% if you meant it)"
            )
        limit = float(number) * (1024 if unit and unit.lower() in ("kib", "kb") else 1)
        found.append(Budget(figure, "==" if op == "=" else op, limit, str(item).strip()))
    return tuple(found)


def check(
    entries: list[CheckEntry],
    jobs: int = 1,
    timeout: float = 300.0,
    baselines: bool = True,
    on_done: Callable[[EntryOutcome], None] | None = None,
) -> CheckResult:
    """Every entry compiled and held to its budgets (and, with `baselines`, to its baseline)."""
    refuse_capture_budgets([b for e in entries for b in e.budgets])
    if len(entries) == 1:
        return _with_notes((_guarded(entries[0], baselines),))
    outcomes: list[EntryOutcome] = []
    tasks = [task(evaluate, entry, baselines, files=_files(entry)) for entry in entries]
    with pool(jobs=min(jobs, len(tasks)), timeout=timeout) as workers:
        for entry, done in zip(entries, workers.run(tasks), strict=True):
            outcome = (
                done.value
                if done.ok
                else EntryOutcome(entry, error=done.error, exit_code=done.exit_code or ExitStatus.FAILED)
            )
            outcomes.append(outcome)
            if on_done:
                on_done(outcome)
    return _with_notes(tuple(outcomes))


def no_compiles_after(mark: str) -> Budget:
    """--no-compiles-after MARK's budget: no compile after the program's `tritonscope.mark(MARK)`."""
    if not mark.strip():
        raise UsageError("--no-compiles-after needs a mark's name: the one the program passes to tritonscope.mark")
    return Budget(f"{COMPILES_AFTER}{mark}", "==", 0.0, f"{COMPILES_AFTER}{mark}=0")


def refuse_capture_budgets(given: list[Budget]) -> None:
    """A count of a capture's compiles after a mark says nothing of one kernel variant: refused there."""
    for budget in given:
        if budget.figure.startswith(COMPILES_AFTER):
            raise UsageError(
                f"{budget.text}: counts a capture's compiles after the program's mark, not a kernel's figure",
                hint=f"give a capture folder: tritonscope check DIR/ --budget '{budget.text}'",
            )


def _with_notes(outcomes: tuple[EntryOutcome, ...]) -> CheckResult:
    """The result, with each entry's findings' notes (what explain would also say was missing)."""
    return CheckResult(outcomes, tuple(f"{o.entry.name}: {note}" for o in outcomes for note in o.notes))


def _files(entry: CheckEntry) -> tuple[str, ...]:
    """What an entry's task reads, sent with it to a cluster's nodes: the kernel and its baseline."""
    return tuple(f for f in (entry.request.file, entry.baseline) if f)


def _guarded(entry: CheckEntry, baselines: bool) -> EntryOutcome:
    """One entry in this process: a kernel that does not compile is a failed entry, not a crash."""
    try:
        return evaluate(entry, baselines)
    except TritonscopeError as exc:
        if exc.exit_code != 1:
            raise
        return EntryOutcome(entry, error=exc.message, exit_code=ExitStatus.FAILED)


def evaluate(entry: CheckEntry, baselines: bool = True) -> EntryOutcome:
    c = compile_request(entry.request)
    for budget in entry.budgets:
        if budget.figure.startswith(LINE) and budget_line(budget) not in linemap.kernel_lines(c):
            raise UsageError(f"budget '{budget.text}': {linemap.outside_kernel(c, budget_line(budget))}")
    result = explain_compilation(c)  # explain's findings, live registers included, what-ifs left out
    values = figures(result)
    broken = [b for b in (against_budget(budget, values, result.findings) for budget in entry.budgets) if b]
    # a block the target cannot launch (too many threads, too much shared memory) holds no budget
    broken += [Broken(LAUNCH, None, w) for w in c.resources.warnings if _FAILS in w]
    notes = result.notes
    if baselines and entry.baseline:
        old = read_baseline(entry.baseline, c)
        broken += against_baseline(old, values, result.findings)
        notes += (old[OTHER_VARIANT],) if old.get(OTHER_VARIANT) else ()
    updated = bool(entry.baseline) and not baselines
    return EntryOutcome(entry, c, values, tuple(broken), result.findings, notes=notes, baseline_updated=updated)


_FAILS = "launch will fail"


def figures(result: ExplainResult) -> dict[str, Any]:
    c = result.compilation
    r = c.resources
    conversions = {x.ttgir_line: x.bytes for line in result.lines for x in line.conversions if x.through_shared}
    return {
        **machine_figures(c.variant.target_info, c.stages, c.line_map),
        "registers": r.registers,
        "spills": r.spills,
        "local_bytes": r.local_bytes + r.stack_bytes,
        "shared": r.shared_bytes,
        "occupancy": round(r.occupancy.percent, 1),
        "conversion_bytes": sum(conversions.values()),
        "findings": len(result.findings),
        "line_time": _line_time(result),
        "line_waits": _line_waits(result),
    }


def _line_time(result: ExplainResult) -> dict[str, float] | None:
    """Each line's share of the estimated time, in percent (`--budget 'line 33 <= 40%'`); None without SASS."""
    if result.time is None:
        return None
    return {str(t.line): round(100 * t.share, 1) for t in result.time.lines}


def _line_waits(result: ExplainResult) -> dict[str, str] | None:
    """What takes each line's time, said where a line budget breaks: what it waits on most, where that
    is a quarter of its time or more, else its instructions' issue (explain's own figures)."""
    if result.time is None:
        return None
    found = {}
    for t in result.time.lines:
        if t.waits_on and t.waits_on[0].cycles >= 0.25 * t.cycles:
            found[str(t.line)] = t.waits_on[0].said
        elif t.cycles > 0:
            found[str(t.line)] = f"issues {count(t.instructions, 'instruction')} ({t.issue / t.cycles:.0%} of its time)"
    return found


def machine_figures(target: Target, stages: Stages, line_map: LineMap) -> dict[str, Any]:
    """The figures read off the machine code: instructions and the narrowest global accesses (a
    scalar's left out: analysis/access_widths.py)."""
    ops = list(instruction_mix.classify(target.vendor.machine_code, stages.get(target.vendor.machine_code, "")))
    return {"instructions": len(ops), **access_widths.narrowest(target, stages, line_map)}


def budget_line(budget: Budget) -> int:
    """The line a line budget (`line 33 <= 40%`) holds."""
    return int(budget.figure.removeprefix(LINE))


# Findings of the whole kernel, placed on a line only to point somewhere (occupancy on the line of most
# registers live): they do not say why that line takes its time
_KERNEL_WIDE = (kinds.OCCUPANCY, kinds.SHARED_BUFFERS, kinds.SHARED_LIMIT)


def _behind(figure: str, found: tuple[Finding, ...]) -> str:
    if figure.startswith(LINE):
        number = int(figure.removeprefix(LINE))
        of_line = (f for f in found if (f.line == number or number in f.lines) and f.kind not in _KERNEL_WIDE)
        finding = next(of_line, None)
    else:
        finding = next((f for f in found if f.kind in FIGURES[figure].findings), None)
    if finding is None:
        return ""
    return f"{'line ' + str(finding.line) if finding.line is not None else 'kernel'}: {finding.message}"


def against_budget(budget: Budget, values: dict[str, Any], found: tuple[Finding, ...]) -> Broken | None:
    if budget.figure.startswith(LINE):
        return _against_line_budget(budget, values, found)
    value = values.get(budget.figure)
    if value is None or budget.holds(value):  # no global store, say: nothing to hold to a width
        return None
    unit = _unit(budget.figure)
    return Broken(budget.figure, value, budget.bound(unit), _behind(budget.figure, found), unit)


def _unit(figure: str) -> str:
    """What a figure's value is said in: `%` of occupancy, ` B` of a size, nothing of a count."""
    return "%" if figure == "occupancy" else " B" if figure in _BYTES else ""


def _against_line_budget(budget: Budget, values: dict[str, Any], found: tuple[Finding, ...]) -> Broken | None:
    """A line's share of the estimated time, in percent (a line with no instruction holds 0%); a
    compile with no estimate (no SASS) breaks the budget, saying so, rather than pass unchecked."""
    shares = values.get("line_time")
    if shares is None:
        return Broken(budget.figure, None, budget.bound("%"), "no time estimate: the compile has no SASS")
    value = shares.get(budget.figure.removeprefix(LINE), 0.0)
    if budget.holds(value):
        return None
    line = budget.figure.removeprefix(LINE)
    # the line's own time first (h24a: an MUFU-bound line was explained by the kernel's occupancy)
    own = f"line {line} {(values.get('line_waits') or {}).get(line, '')}".strip()
    finding = _behind(budget.figure, found)
    return Broken(budget.figure, value, budget.bound("%"), f"{own}; {finding}" if finding else own)


def read_baseline(path: str, c: Compilation) -> dict[str, Any]:
    """The figures of a saved `dump --json` report of the same kernel."""
    if not Path(path).exists():
        raise UsageError(
            f"--baseline {path} does not exist yet",
            hint="write it from the kernel as it is now: the same command with --update-baseline",
        )
    try:
        document = schemas.parse(fileio.read_input_text(path))
        wrong = schemas.problem(document, schemas.BASELINE)
        target = named(document["variant"]["target"]) if wrong is None else None
        if wrong is None and target is None:
            wrong = f"variant.target {document['variant']['target']!r} is no target tritonscope knows"
        if target is not None:
            variant, resources = document["variant"], document["resources"]
            machine = target.vendor.machine_code
            if machine not in document["stages"]:
                wrong = f"stages.{machine} is missing"
    except (OSError, UnicodeDecodeError, schemas.Invalid) as exc:
        wrong = getattr(exc, "strerror", None) or str(exc)
    if wrong is not None or target is None:
        raise UsageError(f"--baseline {path}: not a `tritonscope dump --json` report: {wrong}")
    values = machine_figures(target, document["stages"], linemap.from_by_source(document.get("line_map") or []))
    if variant.get("kernel") != c.kernel.name:
        raise UsageError(f"--baseline {path} is a report of {variant.get('kernel')}, not of {c.kernel.name}")
    values[OTHER_VARIANT] = _other_variant(path, variant, c)
    values.update(
        registers=resources["registers"],
        spills=resources["spills"],
        local_bytes=resources["local_bytes"] + resources["stack_bytes"],
        shared=resources["shared_bytes"],
        occupancy=resources["occupancy"]["percent"],
    )
    return values


OTHER_VARIANT = "other_variant"  # a baseline's key: what sets its variant apart from the one checked, said


def _other_variant(path: str, variant: dict[str, Any], c: Compilation) -> str | None:
    """Where the baseline was written from another variant of the kernel (another autotune config, a
    target), what differs, said in a note: its figures are compared all the same, and were silently (h24a)."""
    mine = {"target": c.variant.target, **c.variant.constexprs, **c.variant.options}
    theirs = {"target": variant.get("target"), **(variant.get("constexprs") or {}), **(variant.get("options") or {})}
    differ = [name for name in dict.fromkeys([*theirs, *mine]) if theirs.get(name) != mine.get(name)]
    if not differ:
        return None
    said = lambda values: ", ".join(f"{n}={values[n]}" if n in values else f"{n} not set" for n in differ)  # noqa: E731
    return f"--baseline {path} is of another variant ({said(theirs)}; this one {said(mine)}): compared all the same"


def against_baseline(old: dict[str, Any], new: dict[str, Any], found: tuple[Finding, ...]) -> list[Broken]:
    broken = []
    for name in COMPARED:
        before, after = old.get(name), new.get(name)
        if before is None or after is None:
            continue
        worse = after > before if FIGURES[name].better == "lower" else after < before
        if worse:
            unit = _unit(name)
            was = size_exact(int(before)) if unit == " B" else f"{before:g}{unit}"
            broken.append(Broken(name, after, f"baseline {was}", _behind(name, found), unit))
    return broken
