"""`check DIR/`: the budgets `check` has, held by every kernel compile of a capture, and with
`--baseline DIR0/` no figure worse than its counterpart's in another capture (paired as
`diff DIR0/ DIR/` pairs them). Read from the artifacts: nothing is compiled."""

from __future__ import annotations

import shlex
from pathlib import Path

from ..analysis.capture_pairs import KernelFigures, KernelPair, pair
from ..captures.folder import open_capture
from ..core.errors import UsageError
from ..core.model import Budget, CheckEntry, VariantRequest
from ..results.check import FIT, Broken, CheckResult, EntryOutcome
from ..results.fit import NO_COMPILE, NO_FIT, Cell
from .capture_fit import launched_fits
from .capture_summaries import summaries
from .check import COMPILES_AFTER, LINE, against_baseline, against_budget, budget_line
from .compile_gate import gate_outcomes


def check_capture(
    folder: Path,
    budgets: tuple[Budget, ...],
    baseline: Path | None,
    jobs: int,
    timeout: float,
    fit_targets: tuple[str, ...] = (),
) -> CheckResult:
    """Every compile of the capture held to the budgets (and the baseline), and with `fit_targets` each
    launched one compiled again for them and held to their limits; the result's notes name the
    compiles without a counterpart in the baseline. A budget on the compiles after a mark
    (`compiles_after_warmup=0`) is held by the capture's logs alone (app/compile_gate.py)."""
    gates = [b for b in budgets if b.figure.startswith(COMPILES_AFTER)]
    budgets = tuple(b for b in budgets if b not in gates)
    gated = gate_outcomes(folder, gates) if gates else []
    if gates and not budgets and baseline is None and not fit_targets:
        return CheckResult(tuple(gated))
    sides = [open_capture(folder)] + ([open_capture(baseline)] if baseline is not None else [])
    if not sides[0].entries and baseline is None:  # `all 0 held their budgets` would pass a broken run
        held = "--fit" if fit_targets else "the budgets"
        raise UsageError(
            f"{folder} is a capture of a program that compiled no Triton kernel: nothing to hold to {held}",
            hint="trace the program again and see why it compiled none (its own output says if it failed)",
        )
    fits, fit_notes = launched_fits(sides[0], fit_targets, jobs, timeout) if fit_targets else ({}, ())
    read = summaries(sides, jobs, timeout, findings=True)
    mine = [read[(folder, e.metadata["hash"])] for e in sides[0].entries]
    counterparts: dict[str, KernelFigures | None] = {k.hash: None for k in mine}
    notes = list(fit_notes)
    if baseline is not None:
        theirs = [read[(baseline, e.metadata["hash"])] for e in sides[1].entries]
        for p in pair(theirs, mine):
            if p.after is not None:
                counterparts[p.after.hash] = p.before
            if p.status in ("added", "removed"):
                notes.append(_unpaired(p))
    notes += _lines_outside(folder, mine, budgets)
    outcomes = [_outcome(k, budgets, baseline, counterparts[k.hash], fits.get(k.hash, ())) for k in mine]
    return CheckResult(tuple(outcomes + gated), tuple(notes))


def _lines_outside(folder: Path, kernels: list[KernelFigures], budgets: tuple[Budget, ...]) -> list[str]:
    """A line budget holds the kernels whose source has the line: one that no kernel of the capture has is
    refused (it would hold 0% everywhere and pass, as `dump --line` refuses it); the kernels it does not
    reach are named in a note."""
    notes = []
    for budget in (b for b in budgets if b.figure.startswith(LINE)):
        line = budget_line(budget)
        outside = [k for k in kernels if line not in k.lines]
        if len(outside) == len(kernels):
            spans = "; ".join(
                dict.fromkeys(f"{k.name}: lines {min(k.lines)}-{max(k.lines)}" for k in kernels if k.lines)
            )
            raise UsageError(f"budget '{budget.text}': line {line} is outside every kernel of {folder}/ ({spans})")
        if outside:
            names = ", ".join(dict.fromkeys(k.name for k in outside))
            notes.append(f"budget '{budget.text}': line {line} is outside {names}, which it does not hold")
    return notes


def _outcome(k: KernelFigures, budgets, baseline: Path | None, before: KernelFigures | None, fits=()) -> EntryOutcome:
    found = k.findings or ()
    values = {**k.figures, "findings": len(found)}
    budgets = tuple(b for b in budgets if not b.figure.startswith(LINE) or budget_line(b) in k.lines)
    broken = [b for b in (against_budget(budget, values, found) for budget in budgets) if b]
    if before is not None:
        broken += against_baseline(before.figures, values, found)
    broken += [_unfit(target, cell, k.reference) for target, cell in fits if cell.verdict in (NO_FIT, NO_COMPILE)]
    name = k.reference + (f" [{k.label}]" if k.label else "")
    entry = CheckEntry(
        name, VariantRequest(file=k.reference, kernel=k.name), budgets, str(baseline) if baseline else None
    )
    return EntryOutcome(entry, None, values, tuple(broken), found, fit_targets=tuple(target for target, _ in fits))


def _unfit(target: str, cell: Cell, reference: str) -> Broken:
    """A launched compile that would not launch on `target` (or not compile for it), as a broken check:
    its buffers, and where to see which of its kernel's configs do fit there."""
    folder, _, name = reference.partition("/:")
    command = shlex.join(["tritonscope", "fit", f"{folder}/", "-k", name.partition("@")[0], "--targets", target])
    where = f"`{command}` shows which configs fit"
    buffers = f"buffers: {'; '.join(cell.buffers)}; " if cell.buffers else ""
    return Broken(FIT + target, None, f"{cell.verdict}: {cell.reason}", buffers + where)


def _unpaired(p: KernelPair) -> str:
    """A note for a compile without a counterpart in the baseline, or one the capture no longer has."""
    side = p.sides[0]
    return f"{side.reference}: {'new, no baseline' if p.after is not None else 'no longer compiled'}"
