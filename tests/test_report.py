"""HTML reports: self-contained, escaped, written whole. The browser tests are in test_report_browser.py."""

from __future__ import annotations

import json
import re

from conftest import KERNELS, compiled

from tritonscope.app.explain import explain_compilation
from tritonscope.core.backends import NVIDIA
from tritonscope.core.stages import Stage
from tritonscope.render import html


def _payload(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="line-map">(.*?)</script>', page, re.DOTALL)
    return json.loads(match.group(1))


def test_report_is_one_self_contained_file(cli, tmp_path):
    out = tmp_path / "matmul.html"
    cli("report", "sample:matmul", "-t", "sm90", "-o", out)
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page and "<script>" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page) and "<link" not in page and "@import" not in page
    assert "default-src 'none'" in page  # and the page may not fetch anything at all
    for stage in NVIDIA.stages_for("triton"):
        assert f'id="column-{stage.value}"' in page
    assert "matmul_kernel" in page and "HGMMA" in page and "limited by registers" in page
    assert [p.name for p in tmp_path.iterdir()] == ["matmul.html"]  # no temporary file left behind


def test_line_map_travels_in_the_page():
    c = compiled("sample:vector_add", "sm90")
    payload = _payload(html.compilation_report(c, list(c.stages)))
    entry = next(e for e in payload["map"] if e["line"] == 21)
    assert entry["file"] == c.kernel.file and entry["stages"]["sass"]


def test_kernel_text_is_escaped():
    c = compiled(str(KERNELS / "injection.py"), "sm90")
    page = html.compilation_report(c, list(c.stages))
    assert "&lt;/script&gt;&lt;script&gt;window.pwned = 1" in page
    assert "<script>window.pwned" not in page and "<img src=x onerror" not in page
    assert page.count("<script") == 2  # the JSON payload and our own script, nothing else
    json.dumps(_payload(page))  # the payload still parses


def test_stage_choice_and_bad_output(cli, tmp_path):
    out = tmp_path / "r.html"
    cli("report", "sample:vector_add", "-t", "gfx942", "--stages", "amdgcn", "--html", out)  # diff's, passes' names
    page = out.read_text()
    assert 'class="column hidden" id="column-ttgir"' in page and 'class="column" id="column-amdgcn"' in page
    assert (
        "refused: it is a folder" in cli("report", "sample:vector_add", "-t", "sm90", "-o", tmp_path, expect=2).stderr
    )
    assert (
        "not produced for gfx942"
        in cli("report", "sample:vector_add", "-t", "gfx942", "--stage", "sass", "-o", out, expect=2).stderr
    )


def test_failed_compile_writes_no_report(cli, tmp_path):
    out = tmp_path / "r.html"
    cli("report", "sample:vector_add", "-t", "sm90", "-c", "BLOCK_SIZE=100", "-o", out, expect=1)
    assert not out.exists()


def test_diff_and_passes_reports(cli, tmp_path):
    cli("diff", "sample:vector_add", "-t", "sm90", "--vary", "BLOCK_SIZE=256,1024", "--html", tmp_path / "d.html")
    page = (tmp_path / "d.html").read_text()
    assert "[0] BLOCK_SIZE=256" in page and 'class="replace"' in page and "sizePerThread = [4]" in page
    cli("passes", "sample:vector_add", "-t", "sm90", "--html", tmp_path / "p.html")
    page = (tmp_path / "p.html").read_text()
    assert "tritongpu-coalesce" in page and "<details>" in page and "ttg.convert_layout" in page


def test_the_report_carries_the_cost_of_each_line_and_the_findings():
    c = compiled("sample:vector_add", "sm90", args=("n_elements=4099",))
    page = html.compilation_report(c, [Stage.SASS], explained=explain_compilation(c, live=False))
    assert 'title="16 instructions · global ld 8x32b">16</span>' in page
    assert '<a href="#" data-goto="15">line 21</a>: <b>narrow-global-access</b>' in page
    assert "n_elements=4099 is not a multiple of 16" in page
    said = "Triton says: Warning: vectorization fails vec = 1 origin vec = 4 numElems = 8 mask is 1"
    assert f'<span class="says">{said}</span>' in page


def test_the_report_page_says_what_explain_says(cli, tmp_path):
    from html import escape

    args = ("sample:vector_add", "-t", "sm90", "-a", "n_elements=4099")
    out = tmp_path / "r.html"
    cli("report", *args, "-o", out)
    page = out.read_text()
    found = json.loads(cli("explain", *args, "--json").stdout)["findings"]
    assert found and any(f["verified"] for f in found)  # a what-if compiled, as explain does
    for f in found:
        assert escape(f["message"]) in page
        if f["verified"]:
            assert f'<span class="try">compiled: {escape(f["verified"])}</span>' in page
