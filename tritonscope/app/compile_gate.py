"""check's budget on a capture's compiles after a mark (`check DIR/ --no-compiles-after warmup`, or
`--budget compiles_after_warmup=0`): the compiles a GPU run would make after the program passed the
mark, counted, each one failing with its kernel, its cause (app/recompiles.py) and the program's line
that launched it; torch.compile's frame compiles after the mark count too. Read from the capture's
logs: nothing is compiled."""

from __future__ import annotations

from pathlib import Path

from ..analysis.recompile_causes import CANDIDATE, FIRST
from ..capture_hook import tritonscope_contract as contract
from ..core.errors import UsageError
from ..core.model import Budget, CheckEntry, VariantRequest
from ..results.check import Broken, EntryOutcome
from ..results.recompiles import KernelHistory, Variant
from .check import COMPILES_AFTER
from .recompiles import recompiles


def gate_outcomes(folder: Path, budgets: list[Budget]) -> list[EntryOutcome]:
    """One outcome per compile after each mark, in time order, failing from the first compile past the
    limit of a budget the count breaks; or one passing outcome for a mark with none after it. Budgets
    on one mark (`--no-compiles-after warmup` with `--budget compiles_after_warmup<=2`) hold one count:
    each compile is one entry."""
    by_mark: dict[str, list[Budget]] = {}
    for budget in budgets:
        by_mark.setdefault(budget.figure, []).append(budget)
    outcomes = []
    for figure, held in by_mark.items():
        mark = figure.removeprefix(COMPILES_AFTER)
        result = recompiles(folder, after=mark, fixes=False)
        _refuse_unread_compiles(folder, result.notes)
        late = [(v.at, f"{folder}/:{k.name}@{v.hash[:8]}", _said(k, v), v.launch) for k, v in result.late()]
        late += [(t.at, f"torch.compile {t.function} ({t.compile_id})", t.said, t.launch) for t in result.late_torch()]
        late.sort(key=lambda compile: compile[0] if compile[0] is not None else float("inf"))  # in time order
        count = len(late)
        broken_by = [budget for budget in held if not budget.holds(count)]
        for place, (_, name, said, launch) in enumerate(late, 1):
            where = f"launched at {launch.where}" if launch is not None else "no launch recorded"
            of = f"; compile {place} of the capture's {count} after {mark}" if count > 1 else ""
            # `<=2` is broken by the third compile on: the first two are within it (a budget the count
            # breaks at every place, `=0`, by each)
            past = [budget for budget in broken_by if not budget.holds(place)]
            why = f"{said}; {where}{of}"
            broken = tuple(Broken(figure, count, b.bound(), why) for b in past)
            outcomes.append(_outcome(name, held, {figure: count}, broken, why))
        if not late:
            outcomes.append(_outcome(f"{folder}/: compiles after {mark}", held, {figure: 0}, ()))
    return outcomes


def _refuse_unread_compiles(folder: Path, notes: tuple[str, ...]) -> None:
    """A compile or mark record that could not be read may be a compile after the mark: the gate
    cannot vouch for the capture (it passed a capture whose kernels.jsonl was cut short)."""
    unread = [n for n in notes if n.endswith("skipped") and f"{contract.LAUNCH_LOG}:" not in n]
    if unread:
        more = f" (and {len(unread) - 1} more)" if len(unread) > 1 else ""
        raise UsageError(
            f"{folder}: the gate cannot be held: {unread[0]}{more}",
            hint="trace the program again (a run killed while writing leaves its last record cut short)",
        )


def _outcome(
    name: str, budgets: list[Budget], figures: dict, broken: tuple[Broken, ...], why: str | None = None
) -> EntryOutcome:
    entry = CheckEntry(name, VariantRequest(file=name.partition("/:")[0] or name), tuple(budgets))
    return EntryOutcome(entry, None, figures, broken, why=why)


def _said(kernel: KernelHistory, v: Variant) -> str:
    """Why this compile happened, in one sentence: its causes, or what kind of compile it is."""
    if v.causes:
        return f"{kernel.name} compiled again: " + "; ".join(c.said for c in v.causes)
    if v.role == FIRST:
        return f"{kernel.name} compiled for the first time: it was not launched before the mark"
    if v.role == CANDIDATE:
        return f"{kernel.name}: another of the autotuner's configs, for the specialization of #{v.compared_with}"
    return f"{kernel.name} compiled again with the same specialization as #{v.compared_with}"
