"""The terminal view: header, resource table and each stage as a highlighted panel."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from ..lexers import lexer_for
from ..model import Compilation, Resources, Stage
from ..targets import TARGETS

THEME = "monokai"
HINT_NAMES = {"D": "divisible by 16", "S": "in 32-bit range"}


def header(c: Compilation) -> RenderableType:
    v = c.variant
    target = TARGETS[v.target]
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    table.add_row("kernel", f"{c.kernel.name}  ({c.kernel.file}:{c.kernel.line})")
    table.add_row("target", f"{target.name}: {target.label}, {target.description}")
    if v.config is not None:
        table.add_row("autotune", f"config {v.config} of {len(c.kernel.autotune_configs)}")
    if v.constexprs:
        table.add_row("constexprs", ", ".join(f"{k}={val}" for k, val in v.constexprs.items()))
    table.add_row("signature", signature_text(c))
    table.add_row("options", ", ".join(f"{k}={val}" for k, val in c.options.items() if val is not None))
    table.add_row("compiled", f"in {c.compile_seconds:.2f} s by Triton {c.triton_version}")
    table.add_row("reproduce", Text(v.command_line(), style="dim"))
    return Panel(table, title="tritonscope", title_align="left", border_style="cyan")


def signature_text(c: Compilation) -> str:
    parts = []
    for name, type_ in c.variant.signature.items():
        if type_ == "constexpr" and name in c.variant.arguments:
            parts.append(f"{name}={c.variant.arguments[name]} (constant)")
        elif type_ != "constexpr":
            hint = ", ".join(HINT_NAMES[h] for h in c.variant.hints.get(name, "") if h in HINT_NAMES)
            parts.append(f"{name}: {type_}" + (f" ({hint})" if hint else ""))
    return ", ".join(parts)


def resource_table(resources: Resources, nvidia: bool) -> RenderableType:
    occ = resources.occupancy
    unit, place = ("warps", "SM") if nvidia else ("waves", "CU")
    table = Table(title="resources", title_justify="left", show_header=True, header_style="bold")
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_column("meaning", style="dim")
    table.add_row("registers" if nvidia else "VGPRs", str(resources.registers), "per thread")
    if resources.sgprs is not None:
        table.add_row("SGPRs", str(resources.sgprs), "per wavefront")
    table.add_row(
        "spills",
        str(resources.spills),
        "4-byte words in local memory per thread" if nvidia else "spilled VGPRs + SGPRs",
    )
    table.add_row("shared memory" if nvidia else "LDS", _bytes(resources.shared_bytes), "per block")
    table.add_row("local memory" if nvidia else "scratch", _bytes(resources.local_bytes), "per thread")
    if nvidia:
        table.add_row("stack", _bytes(resources.stack_bytes), "per thread")
    table.add_row(
        "occupancy",
        f"{occ.percent:.0f}%",
        f"{occ.blocks_per_sm} blocks = {occ.warps_per_sm} of {occ.max_warps_per_sm} {unit} per {place}, "
        f"limited by {occ.limited_by}",
    )
    parts: list[RenderableType] = [table]
    parts += [Text(f"warning: {w}", style="bold yellow") for w in resources.warnings]
    return Group(*parts)


def stage_panel(c: Compilation, stage: Stage) -> RenderableType:
    text = c.stages[stage]
    start = c.kernel.first_line if stage is Stage.SOURCE else 1
    syntax = Syntax(
        text.rstrip("\n"), lexer_for(stage.lexer), theme=THEME, line_numbers=True, start_line=start, word_wrap=True
    )
    lines = text.count("\n") + 1
    return Panel(syntax, title=f"{stage.title}  ({lines} lines)", title_align="left", border_style="blue")


def side_by_side(c: Compilation, stages: list[Stage]) -> RenderableType:
    table = Table(show_header=True, header_style="bold", expand=True, box=None, padding=(0, 1))
    for stage in stages:
        table.add_column(stage.title, ratio=1, overflow="crop", no_wrap=True)
    table.add_row(
        *[
            Syntax(
                c.stages[s].rstrip("\n"),
                lexer_for(s.lexer),
                theme=THEME,
                line_numbers=True,
                start_line=c.kernel.first_line if s is Stage.SOURCE else 1,
                word_wrap=False,
            )
            for s in stages
        ]
    )
    return table


def render(console: Console, c: Compilation, stages: list[Stage], side: bool) -> None:
    console.print(header(c))
    console.print(resource_table(c.resources, TARGETS[c.variant.target].is_nvidia))
    if side:
        console.print(side_by_side(c, stages))
        return
    for stage in stages:
        console.print(stage_panel(c, stage))


def _bytes(n: int) -> str:
    if n >= 1024:
        return f"{n:,} B ({n / 1024:.1f} KiB)"
    return f"{n} B"
