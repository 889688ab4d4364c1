"""`tritonscope check` in the terminal: each entry passed or failed, each broken budget with the
figure, the limit and the finding behind it."""

from __future__ import annotations

import textwrap

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...core.quantities import count, percentage, plural, size
from ...results.check import FIT, LAUNCH, CheckResult
from .base import TerminalRenderer, print_unpadded


def figures_line(figures: dict) -> str:
    def bits(value):
        return f"{value}b" if value is not None else "none"

    if not figures:
        return ""
    if "registers" not in figures:  # a capture's count of compiles after a mark, not a kernel's figures
        return " · ".join(f"the capture's {name.replace('_', ' ')}: {value}" for name, value in figures.items())
    return (
        f"registers {figures['registers']} · spills {figures['spills']} · shared {size(figures['shared'])} · "
        f"occupancy {percentage(figures['occupancy'])} · narrowest load {bits(figures['global_load_bits'])}, "
        f"store {bits(figures['global_store_bits'])} · {count(figures['findings'], 'finding')}"
    )


def _line_shares(outcome) -> str:
    """The shares of the lines a budget holds, broken or not (a CI log shows the margin)."""
    shares = outcome.figures.get("line_time") or {}
    lines = [b.figure.removeprefix("line ") for b in outcome.entry.budgets if b.figure.startswith("line ")]
    return "".join(f" · line {line} {shares.get(line, 0.0):g}% of the time" for line in dict.fromkeys(lines))


def _held(outcome) -> str:
    against_baseline = sum(1 for b in outcome.broken if b.limit.startswith("baseline"))
    fits = sum(1 for b in outcome.broken if b.is_verdict)
    parts = ["its block cannot launch"] if any(b.figure == LAUNCH for b in outcome.broken) else []
    if outcome.entry.budgets:
        total = len(outcome.entry.budgets)
        held = total - (len(outcome.broken) - against_baseline - fits)
        parts.append(
            f"{held} of {total} budgets hold" if total > 1 else f"its budget {'holds' if held else 'is broken'}"
        )
    if outcome.fit_targets:
        unfit = [b.figure.removeprefix(FIT) for b in outcome.broken if b.is_fit]
        fitting = [t for t in outcome.fit_targets if t not in unfit]
        parts.append(f"fits {', '.join(fitting)}" if fitting else "fits none of the --fit targets")
    if outcome.entry.baseline and outcome.baseline_updated:
        parts.append(f"its figures are the baseline now ({outcome.entry.baseline} written)")
    elif outcome.entry.baseline:
        plural = "s" if against_baseline != 1 else ""
        parts.append(f"{against_baseline or 'no'} figure{plural} worse than {outcome.entry.baseline}")
    return "; ".join(parts)


class CheckView(TerminalRenderer):
    def draw(self, console: Console, result: CheckResult) -> None:
        gate = [o for o in result.outcomes if o.why is not None]  # the compiles after a mark
        failing = [o for o in gate if o.broken]
        shared = len(gate) > 1 and bool(failing)  # the count and limit, the same for each: said once, below
        for outcome in result.outcomes:
            print_unpadded(console, _entry(outcome, shared and outcome in gate))
        if shared:
            broken = {b.limit for o in failing for b in o.broken}  # two budgets on one mark: both, in their order
            limits = " and ".join(dict.fromkeys(b.bound() for b in gate[0].entry.budgets if b.bound() in broken))
            which = (
                "each entry above is one of them"
                if len(failing) == len(gate)
                else f"the first {len(gate) - len(failing)} are within it, the {len(failing)} after them past it"
            )
            said = f"{figures_line(gate[0].figures)}, limit {limits}: {which}"
            console.print(Text(textwrap.fill(said, console.width), style="yellow"))  # no space left at a line's end
        for note in result.notes:
            console.print(Text(f"note: {note}", style="yellow"))
        failed = sum(1 for o in result.outcomes if not o.ok)
        total = len(result.outcomes)
        summary = f"{failed} of {total} failed" if failed else f"all {total} held their budgets"
        if total == 1:  # one kernel: not `all 1 held their budgets`
            summary = _one_summary(result.outcomes[0])
        console.print(Text(summary, style="bold red" if failed else "bold green"))


def _entry(outcome, cause_only: bool) -> Table:
    """An entry's lines; `cause_only`: a late compile's, whose count and limit are said once after all."""
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")  # a long name folded, not cut: its @HASH8 tells compiles apart
    if outcome.error is not None:
        status, style = "ERROR", "bold red"
    else:
        status, style = ("PASS", "bold green") if outcome.ok else ("FAIL", "bold red")
    table.add_row(Text(status, style=style), Text(outcome.entry.name, style="bold"))
    if outcome.error is not None:
        table.add_row(Text(""), Text(outcome.error, style="red"))
    elif not cause_only:
        held = _held(outcome)
        if held:
            table.add_row(Text(""), Text(held, style="dim"))
        table.add_row(Text(""), Text(figures_line(outcome.figures) + _line_shares(outcome), style="dim"))
    findings: set[str] = set()  # two budgets on one count break with one cause: said once
    for broken in outcome.broken:
        value = broken.value_said
        if broken.figure.startswith("line ") and broken.value is not None:
            value += "% of the estimated time"
        said = (
            f"{broken.figure}: {broken.limit}"
            if broken.is_verdict
            else f"{broken.figure} = {value}, limit {broken.limit}"
        )
        if not cause_only:
            table.add_row(Text(""), Text(said, style="yellow"))
        if broken.finding and broken.finding not in findings:
            findings.add(broken.finding)
            table.add_row(Text(""), Text(f"↳ {broken.finding}" if cause_only else f"  ↳ {broken.finding}"))
    if cause_only and not outcome.broken and outcome.why:  # a compile within the limit: why it came all the same
        table.add_row(Text(""), Text(f"↳ {outcome.why}", style="dim"))
    return table


def _one_summary(outcome) -> str:
    """The last line for one kernel: what it was held to, and how it came out."""
    if outcome.error is not None:
        return "it could not be checked (above: why)"
    if not outcome.ok:
        return f"it failed: {_held(outcome)}"
    held = [f"its {plural(len(outcome.entry.budgets), 'budget')}"] if outcome.entry.budgets else []
    if outcome.baseline_updated:
        return f"it held {held[0]}; its baseline was written" if held else "its baseline was written"
    held += ["its baseline"] if outcome.entry.baseline else []
    held += [f"the limits of {', '.join(outcome.fit_targets)}"] if outcome.fit_targets else []
    return f"it held {' and '.join(held)}" if held else "it held"
