"""The fixes of a capture's recompiles proved in workers, one task per fix (app/fix_proofs.py): each
compiles the kernel's file, so a kernel that fails or hangs fails its own proof alone."""

from __future__ import annotations

import dataclasses

from ..isolate import pool, task
from ..results.recompiles import KernelHistory
from .fix_proofs import FixPlan, Proof, launch_said, prove

JOBS = 2  # proofs are few and each compiles twice: two workers overlap Triton's start-up
TIMEOUT = 300.0


def proved(histories: list[KernelHistory], planned: list[tuple[int, int, FixPlan]]) -> list[KernelHistory]:
    """HISTORIES with the fix at (kernel, fix) of each plan proved (or said why it could not be)."""
    tasks = [task(prove, plan, files=(plan.file,) if plan.file else ()) for _, _, plan in planned]
    with pool(jobs=min(JOBS, len(tasks)), timeout=TIMEOUT) as workers:
        outcomes = list(workers.run(tasks))
    fixes = {number: list(h.fixes) for number, h in enumerate(histories)}
    found: dict[tuple[int, int], list[tuple[Proof, str]]] = {}  # a fix's proofs: one per pair of launches
    for (number, index, plan), outcome in zip(planned, outcomes, strict=True):
        proof = outcome.value if outcome.ok else Proof(None, note=f"the proof failed: {outcome.error}")
        alone = len(plan.not_specialized) + len(plan.padded) + len(plan.not_aligned) + len(plan.constexprs) <= 1
        said = said_proof(proof, plan, alone or _only(fixes[number][index].param, plan))
        found.setdefault((number, index), []).append((proof, said))
    for (number, index), proofs in found.items():
        verdicts = [proof.proved for proof, _ in proofs]  # every pair one variant, or the fix is not proved
        proved_ = False if False in verdicts else None if None in verdicts else True
        said = "; and ".join(dict.fromkeys(text for _, text in proofs))
        current = fixes[number][index]  # the cost is the first pair's: the recompile the fix answers first
        fixes[number][index] = dataclasses.replace(current, proof=said, proved=proved_, cost=proofs[0][0].cost)
    return [dataclasses.replace(h, fixes=tuple(fixes[n])) for n, h in enumerate(histories)]


def _only(param: str | None, plan: FixPlan) -> bool:
    """Whether the plan applies only this fix's parameters (a do_not_specialize of two names is one fix)."""
    names = set(str(param).split(", "))
    applied = {*plan.not_specialized, *plan.padded, *plan.not_aligned, *(n for n, _ in plan.constexprs)}
    return applied <= names


def said_proof(proof: Proof, plan: FixPlan, alone: bool) -> str:
    """What the proof found, in one sentence."""
    pairs = zip(plan.launches, plan.launch_options, strict=True)
    a, b = (launch_said(plan, launch, options) for launch, options in pairs)
    with_others = "" if alone else " (with the kernel's other fixes)"
    if proof.proved is None:
        return proof.note or "not checked"
    if not proof.proved:
        return f"{a} and {b} still specialize differently{with_others}: {proof.keys[0]} vs {proof.keys[1]}"
    compiled = f", compiled in {proof.seconds:.2f} s" if proof.seconds is not None else f"; {proof.note}"
    return f"{a} and {b} then specialize alike{with_others}: one variant ({proof.keys[0]}){compiled}"
