"""The Python API's notebook view (render/notebook.py) in a real headless Chromium, put into a page as
JupyterLab puts a trusted output (its HTML set as the content of an output element, then each of its
scripts made again so that it runs, as JupyterLab's evalInnerHTMLScriptTags does): a click on a Python
line lights its PTX and SASS lines in that view only, two views on one page keep to themselves, and
no request leaves the page. Driven as tests/test_report_browser.py drives the report."""

from __future__ import annotations

import json

from conftest import compiled
from test_report_browser import ARTIFACTS, browser  # noqa: F401 - the browser fixture

from tritonscope.analysis import linemap
from tritonscope.core.stages import Stage
from tritonscope.render.registry import render
from tritonscope.results.dump import DumpResult

# What JupyterLab does with a trusted text/html output: innerHTML, then every script element replaced by
# a new one with the same text (a script set through innerHTML never runs).
_AS_JUPYTERLAB = """
const outputs = document.getElementById('outputs');
for (const html of arguments[0]) {
  const output = document.createElement('div');
  output.className = 'jp-OutputArea-output';
  output.innerHTML = html;
  outputs.appendChild(output);
  output.querySelectorAll('script').forEach(old => {
    const script = document.createElement('script');
    script.textContent = old.textContent;
    old.parentNode.replaceChild(script, old);
  });
}
"""


def _view(c, stages) -> str:
    return str(render(DumpResult(c, tuple(stages)), "notebook"))


def _lit(output, stage: Stage) -> set[int]:
    found = output.find_elements("css selector", f'.l.hl[data-stage="{stage.value}"]')
    return {int(e.get_attribute("data-line")) for e in found}


def test_a_click_on_a_python_line_lights_its_ptx_and_sass_in_its_own_view(browser, tmp_path):  # noqa: F811
    matmul, vector_add = compiled("sample:matmul", "sm90"), compiled("sample:vector_add", "sm90")
    shown = [Stage.TTGIR, Stage.PTX, Stage.SASS]
    page = tmp_path / "notebook.html"
    page.write_text('<!DOCTYPE html><html><body><div id="outputs"></div></body></html>')
    browser.get(page.as_uri())
    browser.execute_script(_AS_JUPYTERLAB, [_view(matmul, shown), _view(vector_add, shown)])
    first, second = browser.find_elements("css selector", ".jp-OutputArea-output")
    dot = next(e for e in first.find_elements("css selector", '.l[data-stage="source"]') if "tl.dot(" in e.text)
    browser.execute_script("arguments[0].scrollIntoView()", dot)
    dot.click()
    line = int(dot.get_attribute("data-py"))
    for stage in (Stage.PTX, Stage.SASS):
        expected = set(linemap.stage_lines(matmul, stage, {(matmul.kernel.file, line)}))
        assert expected and _lit(first, stage) == expected, stage
        assert _lit(second, stage) == set(), "a click in one view lit another"
    load = next(e for e in second.find_elements("css selector", '.l[data-stage="source"]') if "tl.load(x_ptr" in e.text)
    browser.execute_script("arguments[0].scrollIntoView()", load)
    load.click()
    assert _lit(second, Stage.SASS) and _lit(first, Stage.PTX)  # each view keeps its own lit lines
    requests = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert requests == [], f"the views fetched {json.dumps(requests)}"
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "notebook-matmul-dot.png"))


def test_a_views_styles_stay_inside_it(browser, tmp_path):  # noqa: F811
    """The view's rules are scoped to it: the notebook's own elements of the same classes are left as they are."""
    c = compiled("sample:vector_add", "sm90")
    page = tmp_path / "styles.html"
    page.write_text(
        '<!DOCTYPE html><html><body><div class="hidden l" id="mine">mine</div><div id="outputs"></div></body></html>'
    )
    browser.get(page.as_uri())
    browser.execute_script(_AS_JUPYTERLAB, [_view(c, [Stage.PTX])])
    mine = browser.find_element("id", "mine")
    assert mine.is_displayed() and mine.value_of_css_property("cursor") != "pointer"
    assert browser.execute_script("return getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"


# JupyterLab's rules for any table in an output (rendermime's .jp-RenderedHTMLCommon), which reached a
# view's tables: every cell right-aligned in the page's text colour, odd rows shaded white
_JUPYTERLAB_TABLES = (
    ".jp-RenderedHTMLCommon table { color: rgb(1, 2, 3); }"
    " .jp-RenderedHTMLCommon td, .jp-RenderedHTMLCommon th { text-align: right; color: rgb(1, 2, 3); }"
    " .jp-RenderedHTMLCommon tbody tr:nth-child(odd) { background: rgb(245, 245, 245); }"
)


def test_a_notebooks_table_styles_do_not_reach_a_view(browser, tmp_path):  # noqa: F811
    """In JupyterLab (and nbconvert's HTML) a view's facts, figures and diffs were right-aligned, dark on
    dark or white rows; a notebook's own `pre.view` took the view's padding."""
    c = compiled("sample:vector_add", "sm90")
    page = tmp_path / "jupyterlab.html"
    page.write_text(
        f"<!DOCTYPE html><html><head><style>{_JUPYTERLAB_TABLES}</style></head><body>"
        '<pre class="view" id="theirs">theirs</pre><div id="outputs" class="jp-RenderedHTMLCommon"></div></body></html>'
    )
    browser.get(page.as_uri())
    browser.execute_script(_AS_JUPYTERLAB, [_view(c, [Stage.PTX])])
    label = browser.find_element("css selector", ".jp-OutputArea-output table.facts td")
    assert label.value_of_css_property("text-align") in ("left", "start")
    assert label.value_of_css_property("color") != "rgba(1, 2, 3, 1)"
    row = browser.find_element("css selector", ".jp-OutputArea-output table.facts tr")
    assert row.value_of_css_property("background-color") in ("rgba(0, 0, 0, 0)", "transparent")
    assert browser.find_element("id", "theirs").value_of_css_property("padding-left") == "0px"
