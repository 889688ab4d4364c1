"""Results as a notebook shows them (the Python API's `_repr_html_` and `repr`): one self-contained HTML
block, and a one-line summary for the REPL.

The block reuses the HTML report's linked view (html.py): the resource figures and findings above,
the Python source beside the stages, highlighted; a click on a Python line lights up its lines in
every stage. It is one <div> holding its own styles, scoped to it so that a notebook's own styles and
its other outputs are left alone, and its own script, which finds its elements from the <script>
element itself: nothing is fetched, no external script is loaded. JupyterLab runs the script of an
output it trusts (a cell executed in this session); VS Code runs output scripts. A diff shows its
changed lines; results with no HTML view of their own are their terminal view, as text.
"""

from __future__ import annotations

import hashlib
import html
import re
from typing import Any

from ..core.quantities import count, percentage, size
from ..core.source import cells_named
from ..core.stages import Stage
from ..results.diff import DiffResult
from ..results.dump import DumpResult
from ..results.explain import ExplainResult
from ..results.fit import FitResult
from ..results.passes import PassesResult
from ..results.trace import TraceResult
from . import html as report
from .registry import part, render
from .terminal.fit_rank import duration

_WIDTH = 110  # the terminal views shown as text: a notebook's output is about this wide
_UNFOLDED = 10_000  # a view drawn with no line folded, for its first line whole
_DIFF_ROWS = 300  # a stage's diff rows in a view: a notebook saves every output it shows
_LARGE_STAGE = 100_000  # characters of LLVM IR past which a default view leaves it out (of another stage: 4x)
# `body` is the block itself (`scoped`): a notebook's styles (JupyterLab's tables: right-aligned, their
# own colours and odd-row shading) are outranked by the block's id in every rule
_BLOCK_CSS = (
    "body { background: #1e1f1c; color: #e8e8e3; font-family: system-ui, sans-serif; border-radius: 4px; }"
    " .columns { height: auto; max-height: 70vh; overflow-x: auto; } .column .body { max-height: 64vh; }"
    # a stage narrower than this is unreadable (7 of them in 1200 px): the row scrolls, the source stays
    " .column { min-width: 30em; } .column:first-child { position: sticky; left: 0; z-index: 1; }"
    " pre.view { margin: 0; padding: 8px 12px; white-space: pre; overflow-x: auto; }"
)


class NotebookView:
    """One HTML block per result (render/registry.py names the part that draws each type)."""

    def render(self, result) -> str:
        # a notebook cell's kernel file (/tmp/ipykernel_7/123.py, not on the disk) named as IPython names it
        return cells_named(getattr(self, part(type(result), "notebook"))(result))

    def dump(self, result: DumpResult) -> str:
        c = result.compilation
        chosen: list[Stage] = [s for s in result.stages if s is not Stage.SOURCE]
        only = frozenset(n for file, n in result.source_lines or () if file == c.kernel.file) or None
        note = ""
        # LLVM IR is most of a real kernel's view (2 of matmul's 2.8 MB), and any stage of a huge tile
        # (31,000 lines of PTX at BLOCK_SIZE=2**20): a saved notebook keeps them
        large = [s for s in chosen if len(c.stages.get(s, "")) > _LARGE_STAGE * (1 if s is Stage.LLIR else 4)]
        if not result.named and only is None and large:
            chosen = [s for s in chosen if s not in large]
            said = ", ".join(f"{s.title.split(' (')[0]} ({c.stages[s].count(chr(10)) + 1:,} lines)" for s in large)
            names = ", ".join(f'"{s.value}"' for s in large)
            verb, them = ("is", "it") if len(large) == 1 else ("are", "them")
            note = (
                f'<p class="note">{html.escape(said)} {verb} left out of this view, to keep the notebook small: '
                f"<code>stages=[{html.escape(names)}]</code> shows {them}; <code>.stages[...]</code> holds {them}.</p>"
            )
        return block(note + report.compilation_body(c, chosen, every_stage=False, only=only), linked=True)

    def explain(self, result: ExplainResult) -> str:
        c = result.compilation
        chosen: list[Stage] = [s for s in (Stage.TTGIR, c.variant.target_info.vendor.machine_code) if s in c.stages]
        body = report.compilation_body(c, chosen, explained=result, every_stage=False)
        time = _time(result)  # below the kernel's header, above the columns of stages
        return block(body.replace("</header>", "</header>" + time, 1) if "</header>" in body else time + body, True)

    def diff(self, result: DiffResult) -> str:
        return block(report.diff_body(result, most=_DIFF_ROWS))

    def passes(self, result: PassesResult) -> str:
        return block(report.passes_body(result))

    def trace(self, result: TraceResult) -> str:
        rows = "".join(
            f"<tr><td><code>{html.escape(f'{result.out}/:{name}')}</code></td></tr>" for name in result.kernels
        )
        compiles = f", {count(result.compiles, 'compile')}" if result.compiles > len(result.kernels) else ""
        said = f"{count(len(result.kernels), 'kernel')}{compiles} captured into {result.out}" + (
            f"; stopped: {result.stopped}" if result.stopped else ""
        )
        return block(f'<section><h2>{html.escape(said)}</h2><table class="grid">{rows}</table></section>')

    def text(self, result) -> str:
        """A result with no HTML view of its own: its terminal view, as plain text."""
        drawn = str(render(result, "terminal", width=_WIDTH))
        return block(f'<pre class="view code">{html.escape(drawn)}</pre>')


def _time(result: ExplainResult) -> str:
    """Where the time goes and the whole launch's time, as the terminal says them (the notebook's view
    had neither: only to_json()'s `time`, h19d)."""
    if result.time is None:
        return ""
    import io

    from rich.console import Console

    from .terminal.explain import time_section
    from .terminal.launch import launch_section

    # force_jupyter=False: in Jupyter, rich would display the text itself, beside the view (h22a)
    console = Console(file=io.StringIO(), width=_WIDTH, color_system=None, record=True, force_jupyter=False)
    console.print(time_section(result.time))
    console.print(launch_section(result.launch, result.launch_note))
    said = html.escape(console.export_text().rstrip())
    return f'<section><h2>where the time goes</h2><pre class="view code">{said}</pre></section>'


_SHOWN: dict[str, int] = {}  # block ids given in this process, by digest


def block(body: str, linked: bool = False) -> str:
    """A body in one self-contained <div>: its styles scoped to it, and (`linked`) the script that
    links its lines, run on the <div> that holds it. Its id is the content's digest, so a saved
    notebook's output does not change between runs, with the times it was shown before in this
    process after it (a result shown twice is two elements, each its own script's)."""
    digest = "tsv-" + hashlib.sha256(body.encode()).hexdigest()[:12]
    before = _SHOWN.get(digest, 0)
    _SHOWN[digest] = before + 1
    name = f"{digest}-{before}" if before else digest
    styles = scoped(report.css() + _BLOCK_CSS, f"#{name}")
    root = f"document.currentScript ? document.currentScript.parentElement : document.getElementById('{name}')"
    script = f"<script>{report.script(root)}</script>" if linked else ""
    return f'<div class="tritonscope" id="{name}"><style>{styles}</style>{body}{script}</div>'


_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")


def scoped(css: str, scope: str) -> str:
    """Every rule of `css` applied under `scope` only: `.l` becomes `#id .l`, `body` `#id` itself."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)  # Pygments' comments: not part of a selector

    def under(match: re.Match) -> str:
        selectors = [s.strip() for s in match.group(1).split(",")]
        inside = [scope if s == "body" else f"{scope} {s}" for s in selectors if s]
        return f"{', '.join(inside)} {{{match.group(2)}}}"

    return _RULE.sub(under, css)


class Summary:
    """One line per result, for the REPL: what was compiled and its main figures."""

    def render(self, result) -> str:
        return cells_named(getattr(self, part(type(result), "summary"))(result))

    def dump(self, result: DumpResult) -> str:
        c = result.compilation
        return f"<Dump {_compiled(c)}; stages {' '.join(s.value for s in result.stages)}>"

    def explain(self, result: ExplainResult) -> str:
        kinds = sorted({f.kind for f in result.findings})
        found = (
            f"{len(result.findings)} finding{'s' if len(result.findings) != 1 else ''} ({', '.join(kinds)})"
            if kinds
            else "no findings"
        )
        return f"<Explain {_compiled(result.compilation)}; {found}>"

    def diff(self, result: DiffResult) -> str:
        failed = sum(not o.ok for o in result.outcomes)
        compared = list(dict.fromkeys(d.stage.value for d in result.diffs))
        changed = [stage for stage in compared if any(d.changed for d in result.diffs if d.stage.value == stage)]
        variants = "; ".join(o.describe() for o in result.outcomes)
        said = f"{count(len(result.outcomes), 'variant')} ({variants})" + (f", {failed} failed" if failed else "")
        # the stages diffed are those asked (stages=...): another may differ unseen
        return (
            f"<Diff {said}; of {', '.join(compared) or 'no stage'} compared, changed: {', '.join(changed) or 'none'}>"
        )

    def passes(self, result: PassesResult) -> str:
        changed = sum(bool(r.changed) for r in result.records)
        v = result.variant
        return f"<Passes {v.kernel} on {v.target}: {len(result.records)} MLIR passes, {changed} changed the IR>"

    def trace(self, result: TraceResult) -> str:
        stopped = f"; stopped: {result.stopped}" if result.stopped else ""
        kernels, launches = count(len(result.kernels), "kernel"), count(result.launches, "launch", "launches")
        if result.compiles > len(result.kernels):  # a kernel compiled again: `ts.dump(f"{folder}/:NAME@HASH8")` each
            kernels += f" ({count(result.compiles, 'compile')}: `tritonscope cache list` names them)"
        return f"<Trace {kernels} into {result.out} ({launches} recorded){stopped}>"

    def fit(self, result: FitResult) -> str:
        """Its first line, and with rank=True the fastest config on each target, or why none is timed
        (a ranking without a grid said nothing: h26a)."""
        said = self.other(result)
        if not result.ranked:
            return said
        cells = [(k, t, i, c) for k in result.kernels for t in k.targets for i, c in enumerate(k.column(t))]
        timed = [(t, i, c.estimate) for _, t, i, c in cells if c.estimate is not None]
        if not timed:
            note = next((c.estimate_note for *_, c in cells if c.estimate_note), "no config was timed")
            return f"{said[:-1]}; no time estimates: {note}>"
        fastest: dict[str, tuple[int, Any]] = {}
        for target, index, estimate in timed:
            if target not in fastest or estimate.kernel_us < fastest[target][1].kernel_us:
                fastest[target] = (index, estimate)
        picks = ", ".join(f"{t} #{i} ({duration(e.kernel_us)})" for t, (i, e) in fastest.items())
        return f"{said[:-1]}; fastest: {picks}>"

    def other(self, result) -> str:
        """The first line of its terminal view, after its kind: drawn unfolded, then shortened at a space
        (folded at the view's width, `inputPrecision =` / `tf32` read as cut IR: h24a)."""
        drawn = str(render(result, "terminal", width=_UNFOLDED))
        first = next((line.strip() for line in drawn.splitlines() if line.strip()), "")
        if len(first) > _WIDTH:  # at a comma where there is one (between operands), else at a space
            cut = max(first.rfind(", ", _WIDTH // 2, _WIDTH - 2) + 1, 0) or first.rfind(" ", 0, _WIDTH - 2)
            first = first[:cut].rstrip(",") + " …"
        return f"<{type(result).__name__.removesuffix('Result')} {first}>"


def _compiled(c) -> str:
    r = c.resources
    return (
        f"{c.kernel.name} on {c.variant.target}: {count(r.registers, 'register')}, {count(r.spills, 'spill')}, "
        f"{size(r.shared_bytes)} shared, occupancy {percentage(r.occupancy.percent)}"
    )
