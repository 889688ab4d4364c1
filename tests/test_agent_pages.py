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
    assert said[1:] == ["stages.sass: 2 selected lines of 100, more with cursor 'sass:90'"]


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
    table = pages.passes(
        {"kind": "passes", "passes": [r for r in rows if "diff" not in r]}, 10, None, changed_only=True
    )
    assert [p["index"] for p in table["passes"]] == [0, 2]
    unshown = [{k: v for k, v in r.items() if k != "diff"} for r in rows]  # no pass shown
    whole = {"kind": "passes", "triton_version": "3.6.0", "passes": unshown}
    said = summaries.summary(table, whole)  # the summary names the passes chosen, not every pass
    assert said.startswith("Triton 3.6.0: passes 0 p0 (changed), 2 p2 (changed)") and "p1" not in said, said
    shown = pages.passes(doc, 2, None)
    # a pass shown leads the summary, not the pipeline's first twelve (h22a: "passes 0 p0, 1 p1 ...")
    said = summaries.summary(shown, {**whole, "passes": [{**r, "added": 1, "removed": 1} for r in rows]})
    assert said.splitlines()[:2] == ["Triton 3.6.0: 6 MLIR passes; shown:", "- pass 4 p4: +1 -1 lines, in its diff"]
    assert [p["index"] for p in shown["passes"]] == [4] and shown["passes"][0]["diff"] == ["-a", "+b"]
    assert pages.passes(doc, 2, "diff.4:2")["passes"][0]["diff"] == [" c"]


def test_every_part_is_paged_and_a_kernel_wide_finding_is_said_so():
    """Parts no tool cuts itself (explain's time model, a dump's kernel source) are cut too; without
    max_lines, the heaviest parts are cut until the answer fits; a finding of no line is kernel-wide."""
    from tritonscope.agent.answers import Paging, answer_size

    doc = {
        "kind": "explain",
        "kernel": "k",
        "target": "sm90",
        "resources": {
            "registers": 32,
            "spills": 0,
            "shared_bytes": 0,
            "occupancy": {"percent": 50, "blocks_per_sm": 2, "limited_by": "registers"},
        },
        "lines": [{"line": n, "code": "x" * 200} for n in range(100)],
        "findings": [{"kind": "occupancy", "line": None, "message": "occupancy 50%", "lines": []}],
        "time": {"cycles": 10.0, "lines": [{"line": n, "waits_on": ["y" * 100]} for n in range(50)]},
    }
    cut = pages.cut_whole(doc, pages.explain, 5, "time.lines:45")
    assert [t["line"] for t in cut["time"]["lines"]] == [45, 46, 47, 48, 49] and len(cut["lines"]) == 5
    assert cut["page"]["time.lines"]["next_cursor"] is None and cut["page"]["lines"]["next_cursor"] == "lines:5"
    fitted = Paging(pages.explain).cut(doc)
    assert answer_size(fitted, doc) <= 8000 < answer_size(doc) and fitted["findings"] == doc["findings"]
    said = summaries.summary(fitted, doc)
    assert "- kernel-wide: occupancy: occupancy 50%" in said and "line None" not in said
    assert "time.lines: items 0-" in said and "more with cursor 'time.lines:" in said


def test_a_later_page_carries_the_part_it_goes_on_with_and_fills_the_answer():
    """A diff of eight variants went on 1-3 lines a page, the variants repeated on each (h22a: 157
    calls for a 258-line diff): a later page leaves the other parts out (each with its cursor) and
    shows as many of its own lines as fit the answer's size."""
    from tritonscope.agent.answers import ANSWER_BYTES, Paging, answer_size

    resources = {
        "registers": 32,
        "spills": 0,
        "shared_bytes": 0,
        "occupancy": {"percent": 50, "blocks_per_sm": 2, "limited_by": "registers"},
    }
    variants = [
        {"index": i, "label": {"num_warps": str(i)}, "command": "c" * 600, "ok": True, "resources": resources}
        for i in range(8)
    ]
    lines = [f"-    IMAD R{n}, R{n + 1}, R{n + 2}, RZ ;" for n in range(1000)]
    doc = {
        "kind": "diff",
        "variants": variants,
        "diffs": [{"stage": "sass", "old": 1000, "new": 1000, "unified": lines, "changed": True}],
    }
    first = Paging(pages.diff, None, 60, None).cut(doc)
    cursor = first["page"]["diffs.0"]["next_cursor"]
    later = Paging(pages.diff, None, 60, cursor).cut(doc)
    assert later["variants"] == [] and later["page"]["variants"]["next_cursor"] == "variants:0"
    shown = later["page"]["diffs.0"]["shown"]
    assert shown[0] == int(cursor.split(":")[1]) and shown[1] - shown[0] + 1 > 100, later["page"]
    assert ANSWER_BYTES * 0.9 < answer_size(later, doc) <= ANSWER_BYTES
    assert later["diffs"][0]["unified"] == lines[shown[0] : shown[1] + 1]


def test_a_capture_folder_from_home_is_expanded(monkeypatch, tmp_path):
    """An agent's `~/runs/h100`: no shell expands it, so the tool's input does."""
    from pydantic import TypeAdapter

    from tritonscope.agent.tools import Folder

    monkeypatch.setenv("HOME", str(tmp_path))
    assert TypeAdapter(Folder).validate_python("~/runs/h100") == f"{tmp_path}/runs/h100"
