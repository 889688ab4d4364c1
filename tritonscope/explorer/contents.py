"""What each part of the screen shows, made from the results: the panes' contents, the resource
panel's rows with each figure's change, the findings. Drawing only: every figure comes from the
result (results/explore.py) and the views of render/."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from ..core import fileio
from ..core.quantities import count
from ..core.stages import Stage
from ..render.terminal.dump import resource_rows
from ..render.terminal.explain import figures, heat_level, percent, share_bar
from ..results.explore import ExploreResult
from .listing import Content

SOURCE_GUTTER = 13  # "inst time regs" (or "inst ▍bar regs" without the estimate): explain's, in 13 columns
CONTROL_GUTTER = 19  # a control code as `dump --control` writes it: B------:R-:W-:-:S04
WAITS_SHOWN = 0.01  # a line's waits named in its cost: those of at least 1% of its cycles, as explain


def _own(lines: frozenset[int], number: int) -> tuple[int, ...]:
    return (number,) if number in lines else ()


def source(result: ExploreResult, changed: frozenset[int] = frozenset()) -> Content:
    """The kernel's file, explain's cost of each line in the gutter: its instructions, its share of
    the estimated time where explain has the estimate (NVIDIA, once the SASS is read) or else a bar
    of its share of the busiest line's instructions, shaded by that share, and the registers live."""
    c = result.compilation
    code = frozenset(n for n, text in result.file_lines.items() if text.strip() and not text.strip().startswith("#"))
    return Content(
        title=f"{c.kernel.name}  ({c.kernel.file.rsplit('/', 1)[-1]})",
        lines=tuple(sorted(result.file_lines.items())),
        lexer="python",
        python_lines=partial(_own, code),
        numbers=partial(_own, code),
        changed=changed,
        gutter=_cost_gutter(result),
        gutter_width=SOURCE_GUTTER,
    )


def file_only(path: Path) -> Content | None:
    """A kernel file no variant of which has compiled yet (its first compile failed): its lines, so that
    the error's line can be shown; None where it cannot be read."""
    try:
        text = fileio.read_input_text(path)  # a regular file only: a named pipe would hold the screen
    except (OSError, ValueError):  # UnicodeDecodeError too
        return None
    lines = tuple(enumerate(text.splitlines(), start=1))
    code = frozenset(n for n, line in lines if line.strip() and not line.strip().startswith("#"))
    # its cursor's line is the one selected (session.line): a fix saved then is linked there (h19e)
    return Content(title=path.name, lines=lines, lexer="python", python_lines=partial(_own, code))


def file_since(path: Path | None, shown: ExploreResult | None) -> Content | None:
    """The kernel's file as it is now, where the source pane does not show it: nothing compiled
    yet, or saved since `shown` was compiled (a compile that failed names a line of the new file)."""
    now = file_only(path) if path is not None else None
    if now is not None and shown is not None and now.lines == tuple(sorted(shown.file_lines.items())):
        return None
    return now


def _cost_gutter(result: ExploreResult) -> dict[int, tuple[str, int]]:
    """{line: ("inst time regs", heat)}: `  42  29%  40` timed, `  42 ██▍   40` by instructions."""
    costs = {cost.line: cost for cost in result.explained.lines}
    estimate = result.explained.time
    times = {t.line: t for t in estimate.lines} if estimate is not None else {}
    busiest = max((cost.instructions.total for cost in costs.values()), default=0) or 1
    gutter = {}
    for number in sorted(costs.keys() | times.keys()):
        cost, timed = costs.get(number), times.get(number)
        inst = f"{cost.instructions.total:>4}" if cost else "    "
        regs = f"{cost.live_registers:>4}" if cost and cost.live_registers else "    "
        if estimate is not None:
            share = timed.share if timed else 0.0
            gutter[number] = (f"{inst}{percent(share) if timed else '':>5}{regs}", heat_level(share))
        else:
            share = cost.instructions.total / busiest if cost else 0.0
            gutter[number] = (f"{inst} {share_bar(share)}{regs}", heat_level(share))
    return gutter


def stage(
    result: ExploreResult, which: Stage, changed: frozenset[int] = frozenset(), controls: bool = False
) -> Content:
    """A stage's pane; the SASS with each instruction's control code in the gutter if `controls`
    (as `dump --control` writes it)."""
    if which not in result.listings:  # a stage Triton still makes, or the machine code: made (ptxas) or read
        machine = which is result.compilation.variant.target_info.vendor.machine_code
        doing = "being read (nvdisasm)" if not result.early else "ptxas is making the binary" if machine else "coming"
        return Content(f"{which.title}: {doing}…", (), which.lexer)
    listing = result.listings[which]
    codes = result.controls if controls and which is Stage.SASS and result.controls is not None else {}
    numbered = listing[-1][0] if listing else 0  # the text's own numbering: the lines of location noise left out
    shown = count(len(listing), "line") if numbered <= len(listing) else f"{len(listing):,} of {numbered:,} lines"
    return Content(
        title=f"{which.title}  ({shown})",
        lines=listing,
        lexer=which.lexer,
        python_lines=partial(result.python_lines, which),
        numbers=partial(result.stage_lines, which),
        changed=changed,
        gutter={number: (text, 0) for number, text in codes.items()},
        gutter_width=CONTROL_GUTTER if codes else 0,
    )


def controls_missing(result: ExploreResult) -> str | None:
    """Why the variant's SASS pane can show no control codes, or None when it can (or will: the
    SASS still being read brings them)."""
    target = result.compilation.variant.target_info
    machine = target.vendor.machine_code
    if machine is not Stage.SASS:
        return f"no control codes on {target.name}: they are NVIDIA SASS's, and {machine.title} has none"
    if result.controls is None and result.unread is None and not result.early:
        return f"no control codes: no SASS with its binary ({'; '.join(result.compilation.notices) or 'not made'})"
    return None


def cost_of(result: ExploreResult, line: int | None) -> str:
    """One line's cost as explain says it: its share of the estimated time and the waits that make
    it, then its memory, matrix and barrier figures."""
    cost = next((c for c in result.explained.lines if c.line == line), None)
    if cost is None or line is None:
        return ""
    text = f"line {line}: {count(cost.instructions.total, 'instruction')}"
    timed = result.explained.time.line(line) if result.explained.time is not None else None
    if timed is not None:
        text += f", {percent(timed.share)} of the estimated time"
    if cost.live_registers:
        text += f", {count(cost.live_registers, 'register')} live"
    waits = [w.said for w in timed.waits_on if w.cycles >= WAITS_SHOWN * timed.cycles][:2] if timed else []
    details = [*waits, figures(cost)]
    return "; ".join([text, *filter(None, details)])


def resources(result: ExploreResult, before: ExploreResult | None) -> list[tuple[str, str, str, str]]:
    """(what, value, its change against `before` or "", meaning) for each resource figure."""
    rows = _rows(result)
    old = {name: (value, number) for name, value, number, _ in _rows(before)} if before is not None else {}
    shown = []
    for name, value, number, meaning in rows:
        change = ""
        if name in old and old[name][0] != value:
            was = old[name][1]
            delta = round(number - was, 1) if number is not None and was is not None else None
            change = f"was {old[name][0]}"  # a figure with no number (the stack's `192 words, 768 B`)
            if delta:
                unit = "%" if name == "occupancy" else " B" if value.endswith("B") or "KiB" in value else ""
                signed = f"{int(delta):+,}" if float(delta).is_integer() else f"{delta:+,}"
                change = f"{signed}{unit} (was {old[name][0]})"
        shown.append((name, value, change, meaning))
    return shown


def _rows(result: ExploreResult) -> list[tuple[str, str, float | None, str]]:
    """dump's resource rows, each with its figure as a number where a change of it is worth a sign."""
    c = result.compilation
    r, backend = c.resources, c.variant.target_info.vendor
    numbers = {
        backend.words.registers: r.registers,
        "spills": r.spills,
        backend.words.shared: r.shared_bytes,
        backend.words.local: r.local_bytes,
        "occupancy": round(r.occupancy.percent, 1),
    }
    return [
        (name, value, numbers.get(name), meaning) for name, value, meaning in resource_rows(r, backend, c.partitions)
    ]
