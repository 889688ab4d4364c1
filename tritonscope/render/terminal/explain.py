"""`tritonscope explain` in the terminal: the Python source with a gutter of what each line costs
(its instructions, and where the time estimate is read its share of the estimated time, with a
bar), then where the time goes (the lines ranked by the estimate, each with its evidence), then
the findings. Readable at 80 columns: the gutter is narrow, and a line's memory, matrix and
barrier figures go on a row of their own beneath it."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...analysis.cost import LineCost, source_texts
from ...analysis.findings import REMARK, Finding
from ...analysis.line_time import LineTime, TimeEstimate
from ...core.quantities import count, number_ranges, percentage, size
from ...core.stages import Stage
from ...results.explain import ExplainResult
from .base import Terminal, TerminalRenderer, write_rows
from .compile_time import compile_time_lines
from .dump import header, highlight, widths
from .launch import launch_section

_BAR = " ▏▎▍▌▋▊▉█"
_HEAT = ("", "on #2e2a1a", "on #4a3a12", "on #6b3d0c", "on #8a2b0a")  # background by share of the busiest line


class ExplainView(TerminalRenderer):
    def __init__(self, terminal: Terminal | None = None):
        super().__init__(terminal)

    def draw(self, console: Console, result: ExplainResult) -> None:
        c = result.compilation
        console.print(header(c))
        if result.growth is not None:  # --compile-time: that section alone
            write_rows(console.file, compile_time_lines(c, result.growth, self.terminal))
            return
        console.print(summary(c))
        console.print(_legend(result))
        console.print(source_table(result, self.terminal.color))
        if result.time is not None:
            console.print(time_section(result.time))
            console.print(launch_section(result.launch, result.launch_note))
        for note in result.notes:
            console.print(Text(note, style="dim"))
        draw_findings(console, result.findings)


def summary(c) -> Text:
    """The kernel's figures on one line: registers, spills, shared memory, occupancy, instructions."""
    r, words = c.resources, c.variant.target_info.vendor.words
    occ = r.occupancy
    return Text(
        f"{r.registers} {words.registers} · {count(r.spills, 'spill')} · {size(r.shared_bytes)} {words.shared} · "
        f"occupancy {percentage(occ.percent)} ({count(occ.blocks_per_sm, 'block')}, limited by {occ.limited_by})"
        + (f" · {count(r.instructions.total, 'instruction')}" if r.instructions else ""),
        style="bold",
    )


def _legend(result: ExplainResult) -> Text:
    machine = result.compilation.variant.target_info.vendor.machine_code.title
    text = f"inst: {machine} instructions of each Python line"
    if result.time is not None:
        text += "; time: its share of the estimated time, with a bar (below the source: the lines ranked)"
    else:
        text += ", with a bar for its share of the busiest line"
    if result.live_registers:
        text += "; regs: the most registers live at once in them"
    return Text(text + ". Below a line: its memory traffic (count x bits per thread), matrix ops, barriers.", "dim")


def source_table(result: ExplainResult, color: bool) -> Table:
    c = result.compilation
    costs = {cost.line: cost for cost in result.lines}
    times = {t.line: t for t in result.time.lines} if result.time is not None else None
    texts = source_texts(c)
    first = min([c.kernel.first_line, *costs])
    last = max([c.kernel.first_line + c.kernel.source.count("\n"), *costs])
    busiest = max((cost.instructions.total for cost in costs.values()), default=0) or 1
    flagged = {f.line for f in result.findings}
    table = Table.grid(padding=(0, 1))
    numbers = (len(str(last)), len(str(busiest))) + ((4,) if times is not None else ()) + (4,)
    numbers += (4,) if result.live_registers else ()
    for width in numbers:  # fixed: the source column is cut at the edge, never the gutter
        table.add_column(justify="right", no_wrap=True, min_width=max(width, 4))
    table.add_column(ratio=1)  # each cell says how it wraps: source lines are cut, figures folded
    table.add_row(*_titles(result.live_registers, times is not None))
    # the kernel's own lines, and those of its helpers that made code: the rest of the file between them
    # (attorch's 800 lines of other activation functions) is one `⋮` row
    own = range(c.kernel.first_line, c.kernel.first_line + c.kernel.source.count("\n") + 1)
    previous = None
    for number in sorted({*own, *costs} & set(range(first, last + 1))):
        if previous is not None and number > previous + 1:
            table.add_row(Text("⋮", style="dim"), *[""] * len(numbers))
        previous = number
        code = texts.get(number, "")
        cost = costs.get(number)
        shown = _Shown(number in flagged, result.live_registers, color, times)
        for row in _rows(number, code, cost, busiest, shown):
            table.add_row(*row)
    return table


class _Shown:
    """How a row is drawn: flagged by a finding, with live registers, in colour, with the time estimate."""

    def __init__(self, flagged: bool, live: bool, color: bool, times: dict[int, LineTime] | None):
        self.flagged, self.live, self.color, self.times = flagged, live, color, times


def _titles(live: bool, timed: bool) -> list[Text]:
    titles = ["line", "inst"] + (["time"] if timed else []) + [""] + (["regs"] if live else []) + ["source"]
    return [Text(t, style="bold") for t in titles]


def _rows(number: int, code: str, cost: LineCost | None, busiest: int, shown: _Shown):
    """The row of one Python line, and the row of its memory figures beneath it when it has some."""
    timed = shown.times is not None
    line_time = shown.times.get(number) if shown.times is not None else None
    share = (line_time.share if line_time else 0.0) if timed else (cost.instructions.total / busiest if cost else 0.0)
    heat = _HEAT[heat_level(share)] if (cost or line_time) and shown.color else ""
    mark = Text(str(number), style="bold red" if shown.flagged else "dim")
    inst = Text(str(cost.instructions.total) if cost else "", style="" if timed else heat)
    time = [Text(percent(line_time.share) if line_time else "", style=heat)] if timed else []
    bar = Text(share_bar(share) if share else "", style="red" if shown.color else "", justify="left")
    regs = [Text(str(cost.live_registers) if cost and cost.live_registers else "", style="cyan")] if shown.live else []
    source = highlight(code, Stage.SOURCE) if code.strip() else Text("")
    source.no_wrap, source.overflow = True, "ellipsis"
    rows = [[mark, inst, *time, bar, *regs, source]]
    details = figures(cost) if cost else ""
    if details:
        rows.append([Text("")] * (len(rows[0]) - 1) + [Text(f"  ↳ {details}", "yellow")])
    return rows


def heat_level(share: float) -> int:
    """A line's shade, 0 (none) to 4, by its share (of the busiest line's instructions, or of the time)."""
    return min(int(share * len(_HEAT)), len(_HEAT) - 1)


def percent(share: float) -> str:
    """A share as explain's "time" column writes it: `29%`, or `<1%` for less than half a percent."""
    return f"{share:.0%}" if share >= 0.005 else "<1%"


def share_bar(share: float, width: int = 4) -> str:
    """A bar of eighths, `width` cells for the busiest line."""
    eighths = round(share * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (_BAR[part] if part else "")).ljust(width)


def figures(cost: LineCost) -> str:
    """A line's memory, matrix and barrier figures, the non-zero ones, as one short phrase."""
    m = cost.instructions
    parts = []
    if m.global_loads:
        parts.append(f"global ld {widths(m.global_loads)}")
    if m.global_stores:
        parts.append(f"global st {widths(m.global_stores)}")
    if m.atomics:
        parts.append(f"atomics {m.atomics}")
    if cost.async_copy_widths:
        parts.append(f"async copy {widths(cost.async_copy_widths)}")
    if cost.tma:
        parts.append(f"TMA {cost.tma}")
    if m.shared_loads or m.shared_stores:
        parts.append(f"shared ld/st {m.shared_loads}/{m.shared_stores}")
    if m.matrix:
        parts.append(f"matrix {m.matrix}")
    if m.barriers:
        parts.append(f"barriers {m.barriers}")
    if m.local_loads or m.local_stores:
        parts.append(f"SPILL ld/st {m.local_loads}/{m.local_stores}")
    for conversion in cost.conversions:
        via = f"{size(conversion.bytes)} via shared" if conversion.through_shared else "in registers"
        parts.append(f"convert {conversion.source}->{conversion.destination} {via}")
    return " · ".join(parts)


RANKED = 8  # lines shown under `where the time goes`


def time_section(estimate: TimeEstimate) -> Table:
    """The lines ranked by their share of the estimated time, each with its evidence: the waits it
    makes (on which lines' results), its issue cycles and drain; then what the estimate rests on."""
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True, justify="right")
    table.add_column(no_wrap=True, justify="right")
    table.add_column()
    bound = _BOUNDS.get(estimate.bound, estimate.bound)
    warps = estimate.warps_per_scheduler
    title = f"where the time goes (estimated: {bound}; {warps:g} warp{'' if warps == 1 else 's'} per scheduler)"
    table.add_row(Text(""), Text(""), Text(title, style="bold"))
    for line in [t for t in estimate.ranked if t.share >= 0.01][:RANKED]:
        table.add_row(Text(f"line {line.line}"), Text(percent(line.share), style="bold"), _code(line.code))
        for said in evidence(line):
            table.add_row(Text(""), Text(""), Text(f"↳ {said}", style="yellow"))
    rests = [f"control codes: {estimate.layout}", *estimate.assumptions]
    table.add_row(Text(""), Text(""), Text("; ".join(rests), style="dim"))
    return table


_BOUNDS = {
    "latency": "latency-bound: one warp's own waits",
    "issue": "issue-bound: the warps take turns at the scheduler",
    "memory pipe": "bound by the memory pipe: the warps take turns at the L1",
    "DRAM": "DRAM-bound: memory waits grow with the DRAM's queue",
}


def _code(code: str) -> Text:
    text = highlight(code, Stage.SOURCE) if code.strip() else Text("")
    text.no_wrap, text.overflow = True, "ellipsis"
    return text


def evidence(line: LineTime) -> list[str]:
    """What a line's estimate is made of, largest part first, as phrases that read alone."""
    parts: list[tuple[float, str]] = []
    for w in [w for w in line.waits_on if w.cycles >= 0.01 * line.cycles][:3]:
        parts.append((w.cycles, f"{w.said}: {w.waits} wait{'s' if w.waits != 1 else ''}, {w.cycles:,.0f} cycles"))
    if line.issue >= 0.5:
        parts.append((line.issue, f"issues {count(line.instructions, 'instruction')}: {line.issue:,.0f} cycles"))
    if line.calls:  # first: what its share is made of
        parts.append(
            (
                float("inf"),
                f"counts the lines it calls too ({number_ranges(list(line.calls))}): shares add up past 100%",
            )
        )
    if line.drain and set(line.drained) - {line.line}:  # charged where a profiler samples exiting warps
        whose = number_ranges(sorted(line.drained))
        said = f"the stores of line{'s' if len(line.drained) > 1 else ''} {whose} drain after EXIT"
        parts.append((line.drain, f"{said} (sampled here): {line.drain:,.0f} cycles"))
    elif line.drain:
        parts.append((line.drain, f"stores drain after EXIT: {line.drain:,.0f} cycles"))
    return [said for _, said in sorted(parts, key=lambda p: -p[0])]


def draw_findings(console: Console, found: tuple[Finding, ...]) -> None:
    if not found:
        console.print(Text("No findings: nothing here looks slower than it must be.", style="green"))
        return
    groups = _alike(found)
    together = f", {len(groups)} shown (those alike on several lines once)" if len(groups) < len(found) else ""
    console.print(Text(f"{count(len(found), 'finding')}{together}", style="bold"))
    for alike in groups:
        console.print(_finding_table(alike))


def _alike(found: tuple[Finding, ...]) -> list[list[Finding]]:
    """The findings, those that say the same (kind, message, advice, what compiling it gave) on several
    lines together, in the order of their first: unsloth's RoPE had ten narrow-access findings of one
    text, one per load and store. A kernel-wide finding stands alone."""
    groups: dict[object, list[Finding]] = {}
    for finding in found:
        verified = finding.verified.replace(f"line {finding.line}:", "line #:")  # each its own line's result
        key = (finding.kind, finding.message, finding.suggestion, verified) if finding.line is not None else id(finding)
        groups.setdefault(key, []).append(finding)
    return list(groups.values())


def _finding_table(alike: list[Finding]) -> Table:
    first, several = alike[0], len(alike) > 1
    spans = number_ranges(sorted(f.line for f in alike if f.line is not None))
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column()
    where = f"lines {spans}" if several else f"line {first.line}" if first.line is not None else "kernel"
    shares = [f.time_share for f in alike if f.time_share is not None]
    # the line's share, which the finding's cause need not be all of (a line that waits on its loads)
    share = (
        f" ({'their lines' if several else 'its line'}: {percent(sum(shares))} of the estimated time)" if shares else ""
    )
    table.add_row(Text("●", style="bold red"), Text(f"{where}: {first.kind}{share}", style="bold"))
    table.add_row(Text(""), Text(first.message))
    others = f" (line {first.line}; the others alike: --json gives each)" if several else ""
    table.add_row(Text(""), Text(f"evidence{others}: {first.evidence}", style="dim"))
    if first.remarks and first.kind != REMARK:
        table.add_row(Text(""), Text(f"Triton says: {' | '.join(first.remarks)}", style="magenta"))
    if first.suggestion:
        table.add_row(Text(""), Text(f"try: {first.suggestion}", style="green"))
    if first.verified:
        verified = (
            first.verified.replace(f"line {first.line}:", f"each of lines {spans}:") if several else first.verified
        )
        table.add_row(Text(""), Text(f"compiled: {verified}", style="cyan"))
    return table
