"""What each part of the screen shows, made from the results: the panes' contents, the resource
panel's rows with each figure's change, the findings. Drawing only: every figure comes from the
result (results/explore.py) and the views of render/."""

from __future__ import annotations

import re
from functools import partial

from ..core.stages import Stage
from ..render.terminal.dump import resource_rows
from ..render.terminal.explain import figures, heat_level, share_bar
from ..results.explore import ExploreResult
from .panes import Content

SOURCE_GUTTER = 13  # "inst ▍bar regs": explain's gutter, in 13 columns
SQUEEZED = (Stage.PTX, Stage.SASS, Stage.AMDGCN)  # assembly: its columns padded for 80-column listings
_RUN = re.compile(r"\s{3,}")


def compact(lines: tuple[tuple[int, str], ...], squeeze: bool) -> tuple[tuple[int, str], ...]:
    """A listing for a pane a third of the screen wide: the indentation all lines share taken off and,
    in assembly (`squeeze`), the runs of spaces that pad its columns cut to two, so an instruction is
    seen beside its address rather than past the pane's edge."""
    texts = [text.expandtabs(8) for _, text in lines]
    indent = min((len(t) - len(t.lstrip()) for t in texts if t.strip()), default=0)
    out = []
    for (number, _), text in zip(lines, texts, strict=True):
        text = text[indent:]
        if squeeze:
            lead = min(len(text) - len(text.lstrip()), 2)
            text = " " * lead + _RUN.sub("  ", text.lstrip())
        out.append((number, text))
    return tuple(out)


def _own(lines: frozenset[int], number: int) -> tuple[int, ...]:
    return (number,) if number in lines else ()


def source(result: ExploreResult, changed: frozenset[int] = frozenset()) -> Content:
    """The kernel's file, explain's cost of each line in the gutter: its instructions (shaded by
    its share of the busiest line's), a bar, and the registers live in them."""
    costs = {cost.line: cost for cost in result.explained.lines}
    busiest = max((cost.instructions.total for cost in costs.values()), default=0) or 1
    gutter = {}
    for number, cost in costs.items():
        share = cost.instructions.total / busiest
        regs = f"{cost.live_registers:>4}" if cost.live_registers else "    "
        gutter[number] = (f"{cost.instructions.total:>4} {share_bar(share)}{regs}", heat_level(share))
    code = frozenset(n for n, text in result.file_lines.items() if text.strip() and not text.strip().startswith("#"))
    c = result.compilation
    return Content(
        title=f"{c.kernel.name}  ({c.kernel.file.rsplit('/', 1)[-1]})",
        lines=tuple(sorted(result.file_lines.items())),
        lexer="python",
        python_lines=partial(_own, code),
        numbers=partial(_own, code),
        changed=changed,
        gutter=gutter,
        gutter_width=SOURCE_GUTTER,
    )


def stage(result: ExploreResult, which: Stage, changed: frozenset[int] = frozenset()) -> Content:
    if which not in result.listings:  # the machine code, still being read
        return Content(f"{which.title}: being read (nvdisasm)…", (), which.lexer)
    listing = result.listings[which]
    return Content(
        title=f"{which.title}  ({len(listing)} lines)",
        lines=compact(listing, squeeze=which in SQUEEZED),
        lexer=which.lexer,
        python_lines=partial(result.python_lines, which),
        numbers=partial(result.stage_lines, which),
        changed=changed,
    )


def cost_of(result: ExploreResult, line: int | None) -> str:
    """One line's cost as explain says it beneath the line: its memory, matrix and barrier figures."""
    cost = next((c for c in result.explained.lines if c.line == line), None)
    if cost is None:
        return ""
    text = f"line {line}: {cost.instructions.total} instructions"
    if cost.live_registers:
        text += f", {cost.live_registers} registers live"
    details = figures(cost)
    return f"{text}; {details}" if details else text


def resources(result: ExploreResult, before: ExploreResult | None) -> list[tuple[str, str, str, str]]:
    """(what, value, its change against `before` or "", meaning) for each resource figure."""
    rows = _rows(result)
    old = {name: (value, number) for name, value, number, _ in _rows(before)} if before is not None else {}
    shown = []
    for name, value, number, meaning in rows:
        change = ""
        if name in old and old[name][0] != value:
            was = old[name][1]
            delta = number - was if number is not None and was is not None else None
            unit = "%" if name == "occupancy" else " B" if value.endswith("B") or "KiB" in value else ""
            change = f"{delta:+,}{unit} (was {old[name][0]})" if delta else f"was {old[name][0]}"
        shown.append((name, value, change, meaning))
    return shown


def _rows(result: ExploreResult) -> list[tuple[str, str, int | None, str]]:
    """dump's resource rows, each with its figure as a number where a change of it is worth a sign."""
    c = result.compilation
    r, backend = c.resources, c.variant.target_info.vendor
    numbers = {
        backend.words.registers: r.registers,
        "spills": r.spills,
        backend.words.shared: r.shared_bytes,
        backend.words.local: r.local_bytes,
        "occupancy": round(r.occupancy.percent),
    }
    return [
        (name, value, numbers.get(name), meaning) for name, value, meaning in resource_rows(r, backend, c.partitions)
    ]
