"""`diff DIR1/ DIR2/` in the terminal: one row per kernel compile with its status, and under a
changed one each figure that changed, with its delta; regressions marked `worse`."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...analysis.capture_pairs import Change, KernelPair
from ...core.quantities import size
from ...results.capture_diff import CaptureDiffResult, Comparison
from .base import TerminalRenderer, print_folded

_STYLES = {"same": "dim", "changed": "yellow", "added": "cyan", "removed": "magenta"}
_NAMES = {
    "registers": "registers",
    "spills": "spills",
    "local_bytes": "local memory",
    "shared": "shared memory",
    "occupancy": "occupancy",
    "global_load_bits": "narrowest load bits",
    "global_store_bits": "narrowest store bits",
    "conversion_bytes": "conversion bytes",
    "instructions": "instructions",
}


_UNITS = {"occupancy": "%"}
_BYTES = ("local_bytes", "shared")  # said as sizes are everywhere: `25 KiB`, `1.016 KiB`, `512 B`


def change_text(change: Change) -> Text:
    name = _NAMES.get(change.figure) or change.figure.replace("mix.", "") + " instructions"
    delta, unit = change.delta, _UNITS.get(change.figure, "")
    if change.figure in _BYTES:
        before, after = ("none" if v is None else size(v) for v in (change.before, change.after))
        shown = f" ({'+' if delta >= 0 else '-'}{size(abs(delta))})" if delta is not None else ""
    else:
        shown = f" ({delta:+g}{unit})" if delta is not None else ""
        before, after = (_value(v) + (unit if v is not None else "") for v in (change.before, change.after))
    text = Text(f"{name} {before} -> {after}{shown}")
    if change.regression:
        text.append(" worse", style="bold red")
    return text


def _value(value) -> str:
    return "none" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def _details(p: KernelPair) -> list[Text]:
    lines = []
    if p.how:
        lines.append(Text(f"paired: {p.how}", style="dim"))
    lines += [change_text(c) for c in p.changes]
    lines += [Text(f"+ finding: {f}", style="red") for f in p.appeared]
    lines += [Text(f"- finding: {f}", style="green") for f in p.gone]
    if p.status == "changed" and not (p.changes or p.appeared or p.gone):
        lines.append(Text("the machine code differs; no figure does", style="dim"))
    return lines


def _status(p: KernelPair) -> Text:
    text = Text(p.status, style=_STYLES[p.status])
    if p.status == "changed" and p.regression:
        text.append(" (worse)", style="bold red")
    return text


def _kernel(p: KernelPair) -> Text:
    """The compile's name, constexprs and hash (`@e1aee374`, `@e1aee374 -> @c0e69c47` where the pair's
    differ): compiles of one kernel with the same constexprs differ in what the hash tells apart."""
    side = p.after or p.before
    text = Text(p.name, style="bold")
    if side is not None and side.label:
        text.append(f" [{side.label}]", style="dim")
    hashes = list(dict.fromkeys(s.hash[:8] for s in p.sides if s.hash))
    if hashes:
        text.append(" " + " -> ".join(f"@{h}" for h in hashes), style="dim")
    return text


def summary(c: Comparison) -> Text:
    n = c.counts
    total = sum(n[s] for s in ("same", "changed", "added", "removed"))
    text = Text(f"{total} kernel compiles: {n['same']} same, {n['changed']} changed")
    text.append(f" ({n['regressed']} worse)" if n["regressed"] else "", style="bold red")
    text.append(f", {n['added']} added, {n['removed']} removed")
    return text


def _print_wrapped(console: Console, text: Text, indent: int = 0) -> None:
    """Text wrapped to the width, each line indented and without trailing blanks (piped output)."""
    for part in text.wrap(console, max(console.width - indent, 20)):
        part.rstrip()
        console.print(Text(" " * indent) + part)


class CaptureDiffView(TerminalRenderer):
    def draw(self, console: Console, result: CaptureDiffResult) -> None:
        for note in result.notes:
            _print_wrapped(console, Text(f"note: {note}", style="yellow"))
        for comparison in result.comparisons:
            paths = (str(comparison.before), str(comparison.after))  # folded around, not at their spaces
            print_folded(console, " -> ".join(paths), "bold", keep=paths)
            for p in comparison.pairs:
                row = Table.grid(padding=(0, 1), expand=True)
                row.add_column(overflow="fold", ratio=1)
                row.add_column(no_wrap=True, justify="right")
                row.add_row(_kernel(p), _status(p))
                console.print(row)
                for line in _details(p):  # indented under the kernel, wrapped to the width left
                    _print_wrapped(console, line, indent=4)
            console.print(summary(comparison))
        for failure in result.failures:
            _print_wrapped(console, Text(f"failed: {failure}", style="red"))
