"""`tritonscope profile` in the terminal: explain's per-line view with measured figures. The kernel's
source with a gutter of warp-stall samples (a bar for the share of all), instructions executed
and, where the binary that ran was read, its static instruction count and explain's estimate of the
line's share of the time (beside the measured share: the estimate checked); under a line its top
stall reasons and memory traffic; the hottest line marked and said again at the end. Fits 80 columns."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...analysis.cost import LineCost
from ...analysis.measured import LINE_MAP, Access, Measured, MeasuredLine
from ...core.quantities import count
from ...core.stages import Stage
from ...results.explain import ProfileResult
from .base import TerminalRenderer
from .dump import highlight
from .explain import share_bar

HOT = "▶"
_SPACES = {"Global": "global", "Shared": "shared", "Local": "local", "Global,Shared": "global→shared"}
_OPERATIONS = {"Load": "ld", "Store": "st", "Load,Store": "copy", "Atomic": "atom", "Reduction": "red"}


class ProfileView(TerminalRenderer):
    def draw(self, console: Console, result: ProfileResult) -> None:
        m = result.measured
        console.print(Text(f"profile: {result.kernel} ({result.file}), one launch under ncu", style="bold"))
        console.print(Text(totals(m), style="bold"))
        if m.stalls:
            console.print(Text("stalls: " + shares(m.stalls, m.samples, 6)))
        console.print(Text(_legend(bool(result.static), result.time is not None), style="dim"))
        console.print(source_table(result, self.terminal.color))
        hot = m.hottest
        if hot is not None and hot.samples:
            said = f"hottest: line {hot.line}, {percent(hot.samples, m.samples)} of the samples"
            console.print(Text(f"{said} ({shares(hot.stalls, hot.samples, 3)}): {hot.code.strip()}", "bold red"))
        for note in result.notes:
            console.print(Text(note, style="dim"))


def totals(m: Measured) -> str:
    mapped = "tritonscope's line map of the binary that ran" if m.mapped_by == LINE_MAP else "ncu's line table"
    text = (
        f"{m.samples:,} warp-stall samples ({m.samples_not_issued:,} not issued) · "
        f"{count(m.executed, 'instruction')} executed · lines from {mapped}"
    )
    if m.unattributed_samples:
        text += f" · {count(m.unattributed_samples, 'sample')} on no line of the file"
    return text


def _legend(static: bool, timed: bool = False) -> str:
    text = "samples: warp-stall samples on the line's instructions, with a bar for their share; exec: warp instructions"
    text += " executed" + ("; static: SASS instructions in the binary (as explain counts them)" if static else "")
    text += "; est: explain's estimate of the line's share of the time" if timed else ""
    return text + (
        ". Below a line: its top stall reasons, memory traffic against the ideal for its access size, and "
        "explain's findings on it"
    )


def source_table(result: ProfileResult, color: bool) -> Table:
    m = result.measured
    lines = {line.line: line for line in m.lines}
    static = {cost.line: cost for cost in result.static}
    numbers = sorted({*lines, *static})
    if not numbers:
        return Table.grid()
    hot = m.hottest.line if m.hottest and m.hottest.samples else None
    estimated = {t.line: t.share for t in result.time.lines} if result.time is not None else None
    table = Table.grid(padding=(0, 1))
    widths = (len(str(numbers[-1])) + 1, 7, 4, 6) + ((6,) if static else ()) + ((4,) if estimated else ())
    for width in widths:
        table.add_column(justify="right", no_wrap=True, min_width=width)
    table.add_column(ratio=1)
    titles = ["line", "samples", "", "exec"] + (["static"] if static else []) + (["est"] if estimated else [])
    table.add_row(*[Text(t, style="bold") for t in [*titles, "source"]])
    codes = {n: line.code for n, line in lines.items()} | {n: c.code for n, c in static.items() if c.code}
    for number in range(numbers[0], numbers[-1] + 1):
        rows = _rows(number, codes.get(number, ""), lines.get(number), static, m.samples, hot, color)
        if estimated is not None:
            share = estimated.get(number)
            cell = Text(f"{share:.0%}" if share and share >= 0.005 else ("<1%" if share else ""), style="dim")
            rows = [[*row[:-1], cell if i == 0 else Text(""), row[-1]] for i, row in enumerate(rows)]
        for row in rows:
            table.add_row(*row)
        for finding in result.findings_on(number) if number in lines else ():
            blank = [Text("")] * len(widths)
            table.add_row(*blank, Text(f"  ↳ explain: {finding.kind}: {finding.message}", "magenta"))
    return table


def _rows(number, code, line: MeasuredLine | None, static: dict[int, LineCost], total, hot, color):
    share = line.samples / total if line and total else 0.0
    mark = Text(f"{HOT if number == hot else ''}{number}", style="bold red" if number == hot else "dim")
    samples = Text(f"{line.samples:,}" if line and line.samples else "", style="bold" if number == hot else "")
    bar = Text(share_bar(share) if share else "", style="red" if color else "", justify="left")
    executed = Text(compact(line.executed) if line else "")
    counts = [Text(str(static[number].instructions.total) if number in static else "", style="dim")] if static else []
    source = highlight(code, Stage.SOURCE) if code.strip() else Text("")
    source.no_wrap, source.overflow = True, "ellipsis"
    rows = [[mark, samples, bar, executed, *counts, source]]
    details = figures(line) if line else ""
    if details:
        rows.append([Text("")] * (4 + len(counts)) + [Text(f"  ↳ {details}", "yellow")])
    return rows


def figures(line: MeasuredLine) -> str:
    """A line's top stall reasons and memory traffic, as one short phrase."""
    parts = [shares(line.stalls, line.samples, 3)] if line.stalls else []
    parts += [access(a) for a in line.accesses]
    return " · ".join(parts)


def access(a: Access) -> str:
    kind = f"{_SPACES.get(a.space, a.space.lower())} {_OPERATIONS.get(a.operation, a.operation.lower())}"
    size = f" {a.bits}b" if a.bits else ""
    unit = "sectors" if a.space.startswith("Global") else "wavefronts"
    traffic = f", {a.requests:,} {unit} (ideal {a.ideal:,})" if a.requests or a.ideal else ""
    return f"{kind}{size}: {compact(a.executed)} exec{traffic}"


def shares(stalls: tuple[tuple[str, int], ...], total: int, count: int) -> str:
    return ", ".join(f"{reason} {percent(n, total)}" for reason, n in stalls[:count])


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "0%"


def compact(n: int) -> str:
    """12,345,678 as 12.3M: the gutter stays narrow."""
    for unit, size in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= 10 * size:
            return f"{n / size:.1f}{unit}"
    return f"{n:,}"
