"""The agent server's inputs and pages, without a server: a tool's JSON inputs make the request the
command line's flags make, and a document is cut to pages that go on where the cursor says and
leave the document they were cut from as it was."""

from __future__ import annotations

import copy

import pytest

pytest.importorskip("mcp", reason="the test extra installs the MCP SDK")

from tritonscope.agent import pages, summaries  # noqa: E402
from tritonscope.agent.inputs import request  # noqa: E402
from tritonscope.cli.options import request_from  # noqa: E402
from tritonscope.core.errors import UsageError  # noqa: E402
from tritonscope.core.values import TypeName  # noqa: E402


def test_json_inputs_make_the_request_the_flags_make():
    given = request(
        kernel_file="sample:matmul",
        constexprs={"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": "128", "MODE": '"1"', "ACC": "fp32", "EPS": 1e-5},
        args={"a_ptr": "*bf16", "M": 4096, "bias": None, "flag": True},
        dtype="fp16",
        target="SM_90",
        num_warps=4,
        num_stages=3,
    )
    flags = {
        "file": "sample:matmul",
        "constexpr": ["BLOCK_SIZE_M=64", "BLOCK_SIZE_N=128", 'MODE="1"', "ACC=fp32", "EPS=1e-5"],
        "arg": ["a_ptr=*bf16", "M=4096", "bias=None", "flag=true"],
        "dtype": "fp16",
        "target": "sm_90",
        "num_warps": 4,
        "num_stages": 3,
    }
    assert given == request_from(flags)
    assert dict(given.constexprs)["MODE"] == "1" and isinstance(dict(given.constexprs)["ACC"], TypeName)
    with pytest.raises(UsageError, match="unknown target 'sm999'"):
        request(kernel_file="sample:matmul", target="sm999")
    with pytest.raises(UsageError, match="one value"):
        request(kernel_file="sample:matmul", constexprs={"BLOCK": [64, 128]})  # type: ignore[dict-item]


def _dump_document() -> dict:
    text = "\n".join(f"line {n}" for n in range(1, 101))
    return {
        "kind": "dump",
        "stages": {"ttgir": text, "sass": text},
        "line_map": [{"file": "k.py", "line": 7, "stages": {"ttgir": [3, 4], "sass": [10, 50, 90]}}],
        "selected_lines": [7],
    }


def test_a_stage_is_cut_to_a_page_and_its_cursor_goes_on_with_that_stage_alone():
    whole = _dump_document()
    del whole["selected_lines"]
    kept = copy.deepcopy(whole)
    first = pages.dump(whole, count=30, cursor=None)
    assert first["stages"]["sass"].splitlines() == [f"line {n}" for n in range(1, 31)]
    assert first["page"]["stages"]["sass"] == {"total_lines": 100, "next_cursor": "sass:31", "shown": [1, 30]}
    assert first["line_map"] == [] and first["page"]["line_map"]["total"] == 1
    second = pages.dump(whole, count=30, cursor="sass:31")
    assert list(second["stages"]) == ["sass"] and second["stages"]["sass"].splitlines()[0] == "line 31"
    last = pages.dump(whole, count=30, cursor="sass:91")
    assert last["page"]["stages"]["sass"]["next_cursor"] is None and len(last["stages"]["sass"].splitlines()) == 10
    assert whole == kept  # the kept document serves the next call as it was
    with pytest.raises(UsageError, match="cursor 'ptx:3' is not one this tool gave"):
        pages.dump(whole, count=30, cursor="ptx:3")


def test_a_selected_python_line_shows_the_lines_it_became():
    cut = pages.dump(_dump_document(), count=2, cursor=None)
    assert cut["stages"]["sass"] == "line 10\nline 50" and cut["page"]["stages"]["sass"]["next_cursor"] == "sass:90"
    assert cut["stages"]["ttgir"] == "line 3\nline 4" and cut["line_map"]  # kept for the selected line
    rest = pages.dump(_dump_document(), count=2, cursor="sass:90")
    assert rest["stages"] == {"sass": "line 90"}
    said = summaries.summary({"kind": "dump page", "page": cut["page"]}).splitlines()
    assert said[1:] == ["stages.sass: showing 2 selected lines of 100; more with cursor 'sass:90'"]


def test_lists_are_paged_and_a_diffs_cursor_goes_on_with_its_diff():
    doc = {
        "kind": "diff",
        "variants": [],
        "diffs": [{"stage": "sass", "unified": list("abcdefg"), "changed": True}] * 2,
    }
    cut = pages.diff(doc, count=3, cursor=None)
    assert [d["unified"] for d in cut["diffs"]] == [["a", "b", "c"]] * 2
    assert cut["page"]["diffs.1"]["next_cursor"] == "diffs.1:3"
    on = pages.diff(doc, count=3, cursor="diffs.1:3")
    assert [d["unified"] for d in on["diffs"]] == [[], ["d", "e", "f"]] and on["page"]["diffs.0"]["next_cursor"]
    costs = {"kind": "explain", "lines": [{"line": n} for n in range(10, 20)], "findings": [{"lines": [12]}]}
    explained = pages.explain(costs, lines=(15, 30), count=3, cursor=None)
    assert [c["line"] for c in explained["lines"]] == [15, 16, 17] and explained["findings"] == []
    assert explained["page"]["lines"] == {"shown": [0, 2], "total": 5, "next_cursor": "lines:3"}


def test_passes_show_only_the_shown_passes_with_their_diffs():
    rows = [{"index": i, "name": f"p{i}", "changed": i % 2 == 0} for i in range(6)]
    rows[4] = {**rows[4], "diff": ["-a", "+b", " c"]}
    doc = {"kind": "passes", "passes": rows}
    table = pages.passes({"kind": "passes", "passes": [r for r in rows if "diff" not in r]}, True, 10, None)
    assert [p["index"] for p in table["passes"]] == [0, 2]
    shown = pages.passes(doc, False, 2, None)
    assert [p["index"] for p in shown["passes"]] == [4] and shown["passes"][0]["diff"] == ["-a", "+b"]
    assert pages.passes(doc, False, 2, "diff.4:2")["passes"][0]["diff"] == [" c"]
