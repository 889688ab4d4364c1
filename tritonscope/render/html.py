"""Self-contained HTML reports: one file, CSS and script inline, nothing fetched from a network.

The compilation report puts the Python source beside the chosen stages, each in its own
scrolling column; the source-line map travels in the page as JSON, and a small script
lights up, in every column, the lines that came from the Python line under the pointer.
All text from the kernel and the compiler goes through Pygments' HTML formatter or
html.escape, and the JSON is escaped for a <script> element.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Iterable

from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter

from .. import __version__
from ..analysis import linemap, normalize
from ..core.model import Compilation
from ..core.quantities import count
from ..core.source import cells_named
from ..core.stages import Stage
from ..results.diff import DiffResult
from ..results.dump import DumpResult
from ..results.explain import ExplainResult, ReportResult
from ..results.passes import PassesResult
from .html_facts import facts_table, reproduce
from .lexers import lexer_for
from .registry import part
from .terminal.diff import figure_rows
from .terminal.dump import mix_rows, resource_rows, signature_text
from .terminal.explain import figures

_STYLE = "monokai"

_CSS = """
body { font-family: system-ui, sans-serif; margin: 0; background: #1e1f1c; color: #e8e8e3; }
table, tr, td, th { color: inherit; background: transparent; text-align: left; border: none; }
header, section { padding: 8px 16px; }
h1 { font-size: 18px; margin: 4px 0; } h2 { font-size: 15px; margin: 12px 0 4px; }
table.facts td:first-child { color: #66d9ef; padding-right: 16px; vertical-align: top; }
table.grid { border-collapse: collapse; font-size: 13px; }
table.grid td, table.grid th { border: 1px solid #49483e; padding: 2px 8px; text-align: right; }
table.grid td:first-child, table.grid th:first-child { text-align: left; }
table.passes td:nth-child(-n+4), table.passes th:nth-child(-n+4) { text-align: left; }
.differs { color: #e6db74; font-weight: bold; }
.warning { color: #fd971f; font-weight: bold; }
code, .code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
.picker label { margin-right: 12px; }
.columns { display: flex; gap: 6px; padding: 0 8px 8px; height: 72vh; }
.column { flex: 1 1 0; min-width: 0; display: flex; flex-direction: column; border: 1px solid #49483e; }
.column h3 { margin: 0; padding: 4px 8px; font-size: 13px; background: #272822; }
.column .body { overflow: auto; flex: 1; background: #272822; }
.l { white-space: pre; cursor: pointer; padding-right: 8px; margin: 0; font: inherit; }
.l .ln { color: #75715e; display: inline-block; min-width: 4.5em; text-align: right; padding-right: 8px;
        user-select: none; }
.l.hl { background: #49483e; outline: 1px solid #a6e22e; }
.cost { display: inline-block; min-width: 3.5em; text-align: right; padding-right: 6px; color: #e6db74;
        user-select: none; }
.h1 { background: #2e2a1a; } .h2 { background: #4a3a12; } .h3 { background: #6b3d0c; } .h4 { background: #8a2b0a; }
ul.findings li { margin: 6px 0; } ul.findings .evidence { color: #a6a69c; } ul.findings .try { color: #a6e22e; }
ul.findings .says { color: #ae81ff; }
ul.findings a { color: #66d9ef; }
.l.sel { background: #3e3d32; }
.hidden { display: none; }
table.diff { border-collapse: collapse; width: 100%; table-layout: fixed; }
table.diff td { white-space: pre-wrap; word-break: break-all; vertical-align: top; padding: 0 6px;
                font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
tr.replace td { background: #3b3a24; } tr.delete td:first-child { background: #4a2424; }
tr.insert td:last-child { background: #1f3d24; } tr.skip td { color: #75715e; text-align: center; }
details { margin: 6px 0; } summary { cursor: pointer; }
footer { color: #75715e; font-size: 12px; padding: 8px 16px; }
"""

_SCRIPT = """
(function (root) {
  const lines = root.querySelectorAll('.l[data-stage]');
  const stages = Array.from(new Set(Array.from(lines).map(el => el.dataset.stage)));
  let pinned = 0;
  function clear() { lines.forEach(el => el.classList.remove('hl', 'sel')); }
  function stageLines(stage, pyLines) {
    const wanted = new Set(pyLines.map(String));
    return Array.from(root.querySelectorAll('.l[data-stage="' + stage + '"]'))
      .filter(el => (el.dataset.py || '').split(' ').some(p => wanted.has(p)));
  }
  function light(pyLines, origin) {
    clear();
    stages.forEach(stage => {
      const found = stageLines(stage, pyLines);
      found.forEach(el => el.classList.add('hl'));
      if (found.length && found[0] !== origin) {
        const body = found[0].closest('.body');
        body.scrollTop = found[0].offsetTop - body.offsetTop - 40;
      }
    });
    if (origin) { origin.classList.add('sel'); }
  }
  lines.forEach(el => {
    el.addEventListener('click', () => { if (el.dataset.py) light(el.dataset.py.split(' '), el); });
    if (el.dataset.stage === 'source') {
      el.addEventListener('mouseenter', () => {
        if (el.dataset.py && Date.now() - pinned > 1000) light(el.dataset.py.split(' '), el);
      });
    }
  });
  root.querySelectorAll('a[data-goto]').forEach(link => link.addEventListener('click', event => {
    event.preventDefault();
    const line = root.querySelector('[id="source-' + link.dataset.goto + '"]');
    if (!line) return;
    pinned = Date.now();  // the page scrolls under the pointer: its line, not the one it passes, stays lit
    line.scrollIntoView({block: 'center'});
    line.click();
  }));
  root.querySelectorAll('.picker input').forEach(box => box.addEventListener('change', () => {
    root.querySelector('[id="column-' + box.value + '"]').classList.toggle('hidden', !box.checked);
  }));
})(ROOT);
"""


def script(root: str = "document") -> str:
    """The linked view's script, over the elements under `root` (a JavaScript expression): the page's
    document, or a notebook's block (render/notebook.py)."""
    return _SCRIPT.replace("ROOT", root)


def css() -> str:
    """Every style a report uses, the highlighting's included."""
    # Pygments' LLVM lexer marks keywords newer than it (nneg, disjoint) as errors: no red boxes.
    return _CSS + HtmlFormatter(style=_STYLE).get_style_defs(".code") + ".code .err { background: none; border: none; }"


def _page(title: str, body: str, script: str = "", data: dict | None = None) -> str:
    payload = ""
    if data is not None:
        # Inside <script>, `<` could end the element early: JSON's \\u003c spelling cannot.
        text = json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        payload = f'<script type="application/json" id="line-map">{text}</script>'
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_policy(script)}">'
        f"<title>{html.escape(title)}</title><style>{css()}</style></head><body>{body}"
        f"<footer>tritonscope {html.escape(__version__)}</footer>{payload}"
        f"{'<script>' + script + '</script>' if script else ''}</body></html>\n"
    )


def _policy(script: str) -> str:
    """The page's Content-Security-Policy: only this page's own script runs, named by its digest.

    Every text from a file, a flag or the compiler is escaped; should one ever slip through, a
    `<script>` or an `on...=` handler in it still cannot run, as no inline script is allowed
    but the one whose SHA-256 is listed here."""
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    scripts = f"'sha256-{digest}'" if script else "'none'"
    return f"default-src 'none'; style-src 'unsafe-inline'; script-src {scripts}; img-src data:"


def _highlighted_lines(stage: Stage, lines: normalize.Listing) -> list[str]:
    """Each line's highlighted HTML (Pygments escapes all text), in order."""
    formatter = HtmlFormatter(style=_STYLE, linespans="x")  # each line in <span id="x-N">
    code = "\n".join(text for _, text in lines) + "\n"
    rendered = pygments_highlight(code, lexer_for(stage.lexer), formatter)
    spans = rendered.split('<span id="x-')[1:]
    return [span.split(">", 1)[1].rsplit("</span>", 1)[0].rstrip("\n") for span in spans]


def _column(
    c: Compilation, stage: Stage, keep_loc: bool, heat: dict[int, str] | None = None, only: frozenset[int] | None = None
) -> str:
    lines = normalize.shown(stage, c.stages[stage], keep_loc)
    offset = c.kernel.first_line - 1 if stage is Stage.SOURCE else 0
    stage_map = c.line_map.get(stage, {})
    rows = []
    for (number, _), code in zip(lines, _highlighted_lines(stage, lines), strict=False):
        from_lines = [line for file, line in stage_map.get(number, ()) if file == c.kernel.file]
        if only is not None and not only.intersection(from_lines):
            continue
        python = " ".join(map(str, from_lines))
        cost = heat.get(number + offset, '<span class="cost"></span>') if heat is not None else ""
        rows.append(
            # a <pre> each: a line's indentation is text between spans, which an HTML export of a
            # notebook (nbconvert) collapses everywhere but in a <pre>
            f'<pre class="l" id="{stage.value}-{number}" data-stage="{stage.value}" data-line="{number}" '
            f'data-py="{python}"><span class="ln">{number + offset}</span>{cost}{code}</pre>'
        )
    return (
        f'<div class="column" id="column-{stage.value}"><h3>{html.escape(stage.title)}</h3>'
        f'<div class="body code">{"".join(rows)}</div></div>'
    )


def _resource_table(c: Compilation) -> str:
    r, backend = c.resources, c.variant.target_info.vendor
    # dump's rows (SGPRs, the stack: where spills go on NVIDIA, beside a local memory of 0 B)
    rows = [
        (name, f"{value} ({meaning})" if name == "occupancy" else value)
        for name, value, meaning in resource_rows(r, backend)
    ]
    if r.instructions is not None:
        rows += [(name, value) for name, value, _ in mix_rows(r.instructions, backend)]
    cells = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in rows)
    warnings = "".join(f'<p class="warning">warning: {html.escape(w)}</p>' for w in r.warnings)
    return f'<table class="grid"><tr><th>resource</th><th>value</th></tr>{cells}</table>{warnings}'


def compilation_report(
    c: Compilation, stages: list[Stage], keep_loc: bool = False, explained: ExplainResult | None = None
) -> str:
    """The report of one compilation: header, resources, and source beside the chosen stages; with
    explain's result, each Python line's cost beside it and the findings."""
    body = compilation_body(c, stages, keep_loc, explained)
    data = {"stages": [s.value for s in c.stages], "map": linemap.by_source(c)}
    return _page(f"{c.kernel.name}: tritonscope", body, script(), data)


def compilation_body(
    c: Compilation,
    stages: list[Stage],
    keep_loc: bool = False,
    explained: ExplainResult | None = None,
    every_stage: bool = True,
    only: frozenset[int] | None = None,
) -> str:
    """The report's body; `every_stage`: the stages not chosen there too, hidden (a page's picker shows
    them); `only`: the lines of these Python lines alone, in every column (a notebook's `line=`)."""
    v = c.variant
    target = v.target_info
    signature = signature_text(c)
    facts = facts_table(
        [
            ("kernel", f"{c.kernel.name}  ({cells_named(f'{c.kernel.shown_file}:{c.kernel.line}')})"),
            ("target", f"{target.name}: {target.label}, {target.description}"),
            ("constexprs", ", ".join(f"{k}={val}" for k, val in v.constexprs.items()) or "none"),
            ("signature", signature),
            ("options", ", ".join(f"{k}={val}" for k, val in c.options.items() if val is not None)),
            ("compiled by", _compiled(c)),
            ("reproduce", reproduce(c)),
            *(("note", notice) for notice in c.notices),  # which compile of several, how the file was read
        ]
    )
    all_stages = [s for s in c.stages if s is not Stage.SOURCE and (every_stage or s in stages)]
    picker = "".join(
        f'<label><input type="checkbox" value="{s.value}"{" checked" if s in stages else ""}> '
        f"{html.escape(s.title)}</label>"
        for s in all_stages
    )
    heat = _heat(explained.lines) if explained is not None else None
    columns = _column(c, Stage.SOURCE, keep_loc, heat, only) + "".join(
        _column(c, s, keep_loc, None, only).replace('class="column"', 'class="column hidden"', 1)
        if s not in stages
        else _column(c, s, keep_loc, None, only)
        for s in all_stages
    )
    return (
        f"<header><h1>{html.escape(c.kernel.name)} on {html.escape(target.label)}</h1>{facts}</header>"
        f"<section><h2>Resources</h2>{_resource_table(c)}</section>"
        f"{_findings(c, explained.findings) if explained is not None else ''}"
        f'<section><h2>Stages</h2><div class="picker">Show: {picker}</div>'
        "<p>Point at or click a Python line to light up what it became; click a stage line for the "
        "Python line it came from."
        + (
            " Beside each Python line: its machine instructions, shaded by its share of the busiest line; point "
            "at the number for its memory traffic."
            if heat is not None
            else ""
        )
        + "</p></section>"
        f'<div class="columns">{columns}</div>'
    )


def _heat(costs) -> dict[int, str]:
    """Each Python line's instruction count, as a span shaded by its share of the busiest line."""
    busiest = max((x.instructions.total for x in costs), default=0) or 1
    spans = {}
    for x in costs:
        level = min(4, 1 + 4 * x.instructions.total // (busiest + 1))
        title = html.escape(
            " · ".join(t for t in (count(x.instructions.total, "instruction"), figures(x)) if t), quote=True
        )
        spans[x.line] = f'<span class="cost h{level}" title="{title}">{x.instructions.total}</span>'
    return spans


def _findings(c: Compilation, found) -> str:
    if not found:
        return "<section><h2>Findings</h2><p>None: nothing here looks slower than it must be.</p></section>"
    items = []
    for f in found:
        inside = f.line is not None and 0 <= f.line - c.kernel.first_line <= c.kernel.source.count("\n")
        where = f"line {f.line}" if f.line is not None else "kernel"
        anchor = f'<a href="#" data-goto="{f.line - c.kernel.first_line + 1}">{where}</a>' if inside else where
        items.append(
            f"<li>{anchor}: <b>{html.escape(f.kind)}</b>: {html.escape(f.message)}"
            f'<br><span class="evidence">evidence: {html.escape(f.evidence)}</span>'
            + "".join(f'<br><span class="says">Triton says: {html.escape(r)}</span>' for r in _said(f))
            + (f'<br><span class="try">try: {html.escape(f.suggestion)}</span>' if f.suggestion else "")
            + (f'<br><span class="try">compiled: {html.escape(f.verified)}</span>' if f.verified else "")
            + "</li>"
        )
    return f'<section><h2>Findings</h2><ul class="findings">{"".join(items)}</ul></section>'


def _said(finding) -> tuple[str, ...]:
    """The MLIR remarks a finding carries, but a `remark` finding's own (its message says it)."""
    return finding.remarks if finding.kind != "remark" else ()


def _diff_table(
    side_by_side: Iterable[tuple[str, str | None, str | None]], old: str, new: str, most: int | None = None
) -> str:
    """The rows side by side; `most`: a notebook's view stops after that many, saying how many more."""
    rows = [f"<tr><th>{html.escape(old)}</th><th>{html.escape(new)}</th></tr>"]
    listed = list(side_by_side)
    if most is not None and len(listed) > most:
        more = len(listed) - most
        listed = [*listed[:most], ("more", f"⋯ {more:,} more rows: .to_json() has the whole diff", None)]
    for tag, left, right in listed:
        if tag == "more":
            rows.append(f'<tr class="skip"><td colspan="2">{html.escape(left or "")}</td></tr>')
            continue
        if tag == "skip":
            rows.append('<tr class="skip"><td>⋯</td><td>⋯</td></tr>')
            continue
        cells = "".join(f"<td>{html.escape(line) if line is not None else ''}</td>" for line in (left, right))
        rows.append(f'<tr class="{tag}">{cells}</tr>')
    return f'<table class="diff">{"".join(rows)}</table>'


def diff_report(result: DiffResult) -> str:
    first = next((o.compilation for o in result.outcomes if o.ok), None)
    name = first.kernel.name if first else "kernel"
    return _page(f"{name} variants: tritonscope", diff_body(result))


def diff_body(result: DiffResult, most: int | None = None) -> str:
    """The variants' figures side by side (what differs marked), then each stage's diff (`most`: its rows
    at most, in a notebook's view: a matmul's SASS diff was 40,000 pixels tall)."""
    outcomes = list(result.outcomes)
    head = "".join(f"<th>[{i}] {html.escape(o.describe())}</th>" for i, o in enumerate(outcomes))
    body_rows = []
    for name, values, differs in figure_rows(outcomes):
        label = html.escape(name) + (" *" if differs else "")
        cells = "".join(f"<td{' class=differs' if differs else ''}>{html.escape(v)}</td>" for v in values)
        body_rows.append(f"<tr><td>{label}</td>{cells}</tr>")
    body_rows.append(
        "<tr><td>status</td>"
        + "".join(
            f"<td>{'ok' if o.ok else '<span class=warning>FAILED: ' + html.escape(o.error or '') + '</span>'}</td>"
            for o in outcomes
        )
        + "</tr>"
    )
    sections = []
    for d, rows in zip(result.diffs, result.side_by_side, strict=True):
        old, new = outcomes[d.old].describe(), outcomes[d.new].describe()
        title = f"{d.stage.title}: [{d.old}] {old} → [{d.new}] {new}"
        content = _diff_table(rows, old, new, most) if d.changed else "<p>identical after normalization</p>"
        sections.append(f"<details open><summary>{html.escape(title)}</summary>{content}</details>")
    first = next((o.compilation for o in outcomes if o.ok), None)
    name = first.kernel.name if first else "kernel"
    return (
        f"<header><h1>{html.escape(name)}: {count(len(outcomes), 'variant')}</h1></header>"
        f'<section><h2>Variants (* = differs)</h2><table class="grid"><tr><th></th>{head}</tr>'
        f"{''.join(body_rows)}</table><p>global loads/stores: count x bits per thread</p></section>"
        f"<section><h2>Diffs</h2>{''.join(sections)}</section>"
    )


def passes_report(result: PassesResult) -> str:
    return _page(f"{result.variant.kernel} passes: tritonscope", passes_body(result))


def passes_body(result: PassesResult) -> str:
    """The pass pipeline as a table (the passes --show names marked), then what each pass drawn changed:
    every changed pass on a page, those --show names in a notebook's view (open)."""
    kernel, target, records = result.variant.kernel, result.variant.target, list(result.records)
    shown = {r.index for r in result.selected or ()}
    rows = []
    for r in records:
        changed = "?" if r.changed is None else ("yes" if r.changed else "")
        mark = ' class="differs"' if r.index in shown else ""
        rows.append(
            f"<tr{mark}><td>{r.index}</td><td>{html.escape(r.label)}</td><td>{html.escape(r.class_name)}</td>"
            f"<td>{html.escape(r.level)}</td><td>{changed}</td><td>{r.added if r.changed else ''}</td>"
            f"<td>{r.removed if r.changed else ''}</td></tr>"
        )
    sections = []
    for r in records:
        if r.index not in result.side_by_side:
            continue
        steps = "".join(f"<p>internal step: {html.escape(name)}</p>" for name, _ in r.substeps)
        sections.append(
            f"<details{' open' if r.index in shown else ''}><summary>pass {r.index}: {html.escape(r.label)} "
            f"({html.escape(r.class_name)}), +{r.added} -{r.removed}</summary>{steps}"
            f"{_diff_table(result.side_by_side[r.index], 'before', 'after')}</details>"
        )
    unchanged = [r for r in result.selected or () if r.index not in result.side_by_side]
    sections += [f"<p>pass {r.index}: {html.escape(r.label)} left the IR as it was</p>" for r in unchanged]
    changes = f"<section><h2>What each pass changed</h2>{''.join(sections)}</section>" if sections else ""
    return (
        f"<header><h1>{html.escape(kernel)} on {html.escape(target)}: {len(records)} MLIR passes</h1></header>"
        '<section><table class="grid passes"><tr><th>#</th><th>pass</th><th>class</th><th>level</th><th>changed</th>'
        f"<th>+lines</th><th>-lines</th></tr>{''.join(rows)}</table></section>{changes}"
    )


class HtmlReport:
    """A self-contained HTML page for a report (explain's result), a dump, a diff or a pass pipeline."""

    def __init__(self, keep_loc: bool = False):
        self.keep_loc = keep_loc

    def render(self, result) -> str:
        return getattr(self, part(type(result), "html"))(result)  # the page render/registry.py names

    def report(self, result: ReportResult) -> str:
        c = result.explained.compilation
        return compilation_report(c, list(result.stages), self.keep_loc, result.explained)

    def dump(self, result: DumpResult) -> str:
        return compilation_report(result.compilation, list(result.stages), self.keep_loc)

    def diff(self, result: DiffResult) -> str:
        return diff_report(result)

    def passes(self, result: PassesResult) -> str:
        return passes_report(result)


def _compiled(c: Compilation) -> str:
    if c.variant.cached:  # a capture's compile: its binary, not compiled again (dump's words)
        return f"Triton {c.triton_version}, earlier: read from its cache, not recompiled"
    cached = ", read from Triton's cache (compiled earlier)" if c.cache_hit else ""
    return f"Triton {c.triton_version} in {c.compile_seconds:.2f} s{cached}"
