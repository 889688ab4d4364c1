"""`tritonscope explain` in the terminal: the Python source with a gutter of what each line costs,
shaded by its share of the instructions, then the findings. Readable at 80 columns: the gutter
is narrow, and a line's memory, matrix and barrier figures go on a row of their own beneath it."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...analysis.cost import LineCost, source_texts
from ...analysis.findings import REMARK, Finding
from ...core.stages import Stage
from ...results.explain import ExplainResult
from .base import Terminal, TerminalRenderer, write_rows
from .compile_time import compile_time_lines
from .dump import header, highlight, widths

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
        for note in result.notes:
            console.print(Text(note, style="dim"))
        draw_findings(console, result.findings)


def summary(c) -> Text:
    """The kernel's figures on one line: registers, spills, shared memory, occupancy, instructions."""
    r, words = c.resources, c.variant.target_info.vendor.words
    occ = r.occupancy
    return Text(
        f"{r.registers} {words.registers} · {r.spills} spills · {r.shared_bytes:,} B {words.shared} · "
        f"occupancy {occ.percent:.0f}% ({occ.blocks_per_sm} blocks, limited by {occ.limited_by})"
        + (f" · {r.instructions.total} instructions" if r.instructions else ""),
        style="bold",
    )


def _legend(result: ExplainResult) -> Text:
    machine = result.compilation.variant.target_info.vendor.machine_code.title
    text = f"inst: {machine} instructions of each Python line, with a bar for its share of the busiest line"
    if result.live_registers:
        text += "; regs: the most registers live at once in them"
    return Text(text + ". Below a line: its memory traffic (count x bits per thread), matrix ops, barriers.", "dim")


def source_table(result: ExplainResult, color: bool) -> Table:
    c = result.compilation
    costs = {cost.line: cost for cost in result.lines}
    texts = source_texts(c)
    first = min([c.kernel.first_line, *costs])
    last = max([c.kernel.first_line + c.kernel.source.count("\n"), *costs])
    busiest = max((cost.instructions.total for cost in costs.values()), default=0) or 1
    flagged = {f.line for f in result.findings}
    table = Table.grid(padding=(0, 1))
    numbers = (len(str(last)), len(str(busiest)), 4) + ((4,) if result.live_registers else ())
    for width in numbers:  # fixed: the source column is cut at the edge, never the gutter
        table.add_column(justify="right", no_wrap=True, min_width=max(width, 4))
    table.add_column(ratio=1)  # each cell says how it wraps: source lines are cut, figures folded
    table.add_row(*_titles(result.live_registers))
    for number in range(first, last + 1):
        code = texts.get(number, "")
        cost = costs.get(number)
        for row in _rows(number, code, cost, busiest, number in flagged, result.live_registers, color):
            table.add_row(*row)
    return table


def _titles(live: bool) -> list[Text]:
    titles = ["line", "inst", ""] + (["regs"] if live else []) + ["source"]
    return [Text(t, style="bold") for t in titles]


def _rows(number: int, code: str, cost: LineCost | None, busiest: int, flagged: bool, live: bool, color: bool):
    """The row of one Python line, and the row of its memory figures beneath it when it has some."""
    share = cost.instructions.total / busiest if cost else 0.0
    heat = _HEAT[min(int(share * len(_HEAT)), len(_HEAT) - 1)] if cost and color else ""
    mark = Text(str(number), style="bold red" if flagged else "dim")
    inst = Text(str(cost.instructions.total) if cost else "", style=heat)
    bar = Text(_bar(share) if cost else "", style="red" if color else "", justify="left")
    regs = [Text(str(cost.live_registers) if cost and cost.live_registers else "", style="cyan")] if live else []
    source = highlight(code, Stage.SOURCE) if code.strip() else Text("")
    source.no_wrap, source.overflow = True, "ellipsis"
    rows = [[mark, inst, bar, *regs, source]]
    details = figures(cost) if cost else ""
    if details:
        rows.append([Text(""), Text(""), Text(""), *([Text("")] if live else []), Text(f"  ↳ {details}", "yellow")])
    return rows


def _bar(share: float, width: int = 4) -> str:
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
        via = f"{conversion.bytes / 1024:.4g} KiB via shared" if conversion.through_shared else "in registers"
        parts.append(f"convert {conversion.source}->{conversion.destination} {via}")
    return " · ".join(parts)


def draw_findings(console: Console, found: tuple[Finding, ...]) -> None:
    if not found:
        console.print(Text("No findings: nothing here looks slower than it must be.", style="green"))
        return
    console.print(Text(f"{len(found)} finding{'s' if len(found) != 1 else ''}", style="bold"))
    for finding in found:
        table = Table.grid(padding=(0, 1))
        table.add_column(no_wrap=True)
        table.add_column()
        where = f"line {finding.line}" if finding.line is not None else "kernel"
        table.add_row(Text("●", style="bold red"), Text(f"{where}: {finding.kind}", style="bold"))
        table.add_row(Text(""), Text(finding.message))
        table.add_row(Text(""), Text(f"evidence: {finding.evidence}", style="dim"))
        if finding.remarks and finding.kind != REMARK:
            table.add_row(Text(""), Text(f"Triton says: {' | '.join(finding.remarks)}", style="magenta"))
        if finding.suggestion:
            table.add_row(Text(""), Text(f"try: {finding.suggestion}", style="green"))
        if finding.verified:
            table.add_row(Text(""), Text(f"compiled: {finding.verified}", style="cyan"))
        console.print(table)
