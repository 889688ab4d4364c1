"""`tritonscope passes`: the pass pipeline as a table, and what chosen passes did."""

from __future__ import annotations

import json

from rich.console import Console, Group
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from .. import __version__, normalize
from ..model import SCHEMA_VERSION, Stage, Variant, to_jsonable
from ..passes import LlvmPassRecord, PassRecord
from .console import THEME, numbered


def table(records: list[PassRecord], title: str) -> Table:
    view = Table(title=title, title_justify="left", header_style="bold")
    for column, justify in (
        ("#", "right"),
        ("pass", "left"),
        ("class", "left"),
        ("level", "left"),
        ("changed", "left"),
        ("+lines", "right"),
        ("-lines", "right"),
        ("run", "left"),
    ):
        view.add_column(column, justify=justify)
    for r in records:
        changed = "?" if r.changed is None else ("yes" if r.changed else "")
        run = f"{r.occurrence} of {r.occurrences}" if r.occurrences > 1 else ""
        substeps = f" (+{len(r.substeps)} steps)" if r.substeps else ""
        view.add_row(
            str(r.index),
            r.name + substeps,
            r.class_name,
            r.level,
            changed,
            str(r.added) if r.changed else "",
            str(r.removed) if r.changed else "",
            run,
            style="bold" if r.changed else "dim",
        )
    return view


def llvm_table(records: list[LlvmPassRecord]) -> Table:
    view = Table(title="LLVM passes (LLVM IR after each)", title_justify="left", header_style="bold")
    for column in ("#", "pass", "on", "changed", "+lines", "-lines"):
        view.add_column(column, justify="right" if column in ("#", "+lines", "-lines") else "left")
    for r in records:
        view.add_row(
            str(r.index),
            r.name,
            Text(r.scope),  # `[module]` is no style tag
            "yes" if r.changed else "",
            str(r.added) if r.changed else "",
            str(r.removed) if r.changed else "",
            style="bold" if r.changed else "dim",
        )
    return view


def shown(record: PassRecord, full: bool, keep_loc: bool) -> Panel:
    title = f"pass {record.index}: {record.label} ({record.class_name}) on {record.level}"
    parts = []
    if full:
        ir = record.after if record.after is not None else record.before
        lines = normalize.shown(Stage.TTGIR, ir, keep_loc)
        parts.append(numbered(lines, Stage.TTGIR, 1))
        title += ": the IR after it" if record.after is not None else ": the IR before it (the after is unknown)"
    elif record.changed is False:
        parts.append(Text("no change (after normalization)", style="dim"))
    elif record.after is None:
        parts.append(Text("the IR after this pass was not dumped", style="yellow"))
    else:
        parts.append(Syntax("\n".join(record.diff()), "diff", theme=THEME, word_wrap=True))
    for name, _ in record.substeps:
        parts.append(Text(f"internal step: {name}", style="cyan"))
    return Panel(Group(*parts), title=title, title_align="left", border_style="magenta")


def render(
    console: Console,
    variant: Variant,
    records: list[PassRecord],
    llvm: list[LlvmPassRecord] | None,
    only_changed: bool,
    selected: list[PassRecord] | None,
    full: bool,
    keep_loc: bool,
) -> None:
    changed = sum(1 for r in records if r.changed)
    console.print(
        Text(f"{variant.kernel} on {variant.target}: {len(records)} MLIR passes, {changed} changed the IR", style="dim")
    )
    if selected is None:
        rows = [r for r in records if r.changed] if only_changed else records
        console.print(table(rows, "MLIR passes (IR before each, in order)"))
        if llvm is not None:
            console.print(llvm_table([r for r in llvm if r.changed] if only_changed else llvm))
        return
    for record in selected:
        console.print(shown(record, full, keep_loc))


def render_json(
    variant: Variant,
    records: list[PassRecord],
    llvm: list[LlvmPassRecord] | None,
    selected: list[PassRecord] | None,
    full: bool,
) -> str:
    def entry(r: PassRecord) -> dict:
        data = {
            "index": r.index,
            "name": r.name,
            "class": r.class_name,
            "level": r.level,
            "changed": r.changed,
            "added": r.added,
            "removed": r.removed,
            "occurrence": r.occurrence,
            "occurrences": r.occurrences,
            "substeps": [name for name, _ in r.substeps],
        }
        if selected is not None and r in selected:
            data["diff"] = r.diff()
            if full:
                data["ir_after"] = r.after
        return data

    document = {
        "schema": SCHEMA_VERSION,
        "tool": {"name": "tritonscope", "version": __version__},
        "kind": "passes",
        "variant": to_jsonable(variant),
        "passes": [entry(r) for r in records],
    }
    if llvm is not None:
        document["llvm_passes"] = [to_jsonable(r) for r in llvm]
    return json.dumps(document, indent=2) + "\n"
