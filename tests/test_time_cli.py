"""The control codes and the time estimate as the commands show them: `dump --control`, explain's
time column and ranking, findings' shares, `check --budget 'line N <= P%'`, profile's JSON shape."""

from __future__ import annotations

import json
import re

from conftest import compiled
from typer.testing import CliRunner

from tritonscope.cli import app


def narrow(*args: str) -> str:
    """A command's terminal output at 80 columns, as a log or a pipe gets it."""
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stdout + result.stderr
    return result.stdout


def _line_of(c, text: str) -> int:
    return next(n for n, code in enumerate(c.kernel.source.splitlines(), c.kernel.first_line) if text in code)


def test_dump_control_shows_each_instruction_code_at_80_columns(cli):
    out = narrow("dump", "sample:vector_add", "--stage", "sass", "--control")
    rows = [row for row in out.splitlines() if "/*0" in row]
    assert rows and all(re.search(r"B[-0-5]{6}:R[-0-5]:W[-0-5]:[-Y]:S\d\d │", row) for row in rows)
    fadd = next(row for row in rows if "FADD" in row)
    assert "B--2---" in fadd or "B---3--" in fadd  # the add waits on its loads' scoreboard
    assert "CuAssembler's notation" in out
    assert all(len(line) <= 80 for line in out.splitlines())
    # nvdisasm's padding (the instruction 35 columns in) is cut so that the instructions are read, not
    # cut: a newcomer met 470 of matmul's lines ending in `…` at 80 columns
    cut = [row for row in rows if row.endswith("…")]
    assert len(cut) <= len(rows) // 10 and re.search(r"│ +/\*0000\*/ {1,2}\S", rows[0]), (len(cut), rows[0])


def test_dump_control_json_carries_words_codes_and_producers(cli):
    doc = json.loads(cli("dump", "sample:vector_add", "--stage", "sass", "--control", "--json").stdout)
    control = doc["sass_control"]
    assert "published" in control["layout"]
    instructions = {i["offset"]: i for i in control["instructions"]}
    waiting = [i for i in instructions.values() if i["text"].startswith("FADD") and i["waits"]]
    assert waiting
    for wait in waiting[0]["waits"]:
        board = int(wait["scoreboard"][2:])
        assert board in waiting[0]["control"]["wait"]
        for producer in wait["producers"]:
            assert instructions[producer]["text"].startswith("@!P") and "LDG" in instructions[producer]["text"]
            assert instructions[producer]["control"]["write"] == board
    word = int(waiting[0]["word"], 16)
    assert (word >> 116) & 0x3F == sum(1 << b for b in waiting[0]["control"]["wait"])


def test_dump_control_needs_sass(cli):
    assert (
        "--control reads NVIDIA SASS"
        in cli("dump", "sample:vector_add", "--target", "gfx942", "--control", expect=2).stderr
    )


def test_explain_ranks_lines_by_the_estimate_beside_the_counts(cli):
    c = compiled("sample:vector_add")
    out = narrow("explain", "sample:vector_add")
    assert re.search(r"line\s+inst\s+time", out)
    add, loads = _line_of(c, "output = x + y"), (_line_of(c, "x = tl.load"), _line_of(c, "y = tl.load"))
    ranked = out.split("where the time goes", 1)[1]
    first = re.search(r"line (\d+)\s+(\d+)%", ranked)
    assert int(first.group(1)) == add and int(first.group(2)) > 40
    assert f"waits on the loads of lines {loads[0]}, {loads[1]} (global load)" in ranked
    assert all(len(line) <= 80 for line in out.splitlines())


def test_explain_json_has_the_estimate_and_findings_their_share(cli):
    doc = json.loads(cli("explain", "sample:softmax", "--json").stdout)
    time = doc["time"]
    shares = [t["share"] for t in time["lines"]]
    assert shares == sorted(shares, reverse=True) and abs(sum(shares) - 1) < 0.01
    assert time["bound"] in ("latency", "issue", "memory pipe", "DRAM") and time["warps_per_scheduler"] > 0
    by_line = {t["line"]: t["share"] for t in time["lines"]}
    placed = [f for f in doc["findings"] if f["line"] is not None]
    assert placed and all(abs(f["time_share"] - by_line.get(f["line"], 0.0)) < 1e-3 for f in placed)


def test_explain_on_amd_has_no_estimate(cli):
    doc = json.loads(cli("explain", "sample:vector_add", "--target", "gfx942", "--json").stdout)
    assert doc["time"] is None


def test_check_holds_a_line_to_its_share_of_the_estimated_time(cli):
    c = compiled("sample:vector_add")
    add = _line_of(c, "output = x + y")
    failed = cli("check", "sample:vector_add", "--budget", f"line {add} <= 40%", "--json", expect=1).stdout
    broken = json.loads(failed)["entries"][0]["broken"]
    assert [b["figure"] for b in broken] == [f"line {add}"] and broken[0]["value"] > 40
    assert "global load" in broken[0]["finding"]
    held = cli("check", "sample:vector_add", "--budget", f"line {add} <= 99%", "--budget", "line 9 <= 1%").stdout
    # a budget that holds says its line's share too: a CI log shows the margin (it said nothing)
    share = json.loads(failed)["entries"][0]["figures"]["line_time"][str(add)]
    assert f"line {add} {share:g}% of the time · line 9 0% of the time" in " ".join(held.split())
    said = cli("check", "sample:vector_add", "--budget", f"line{add}<=4KiB", expect=2).stderr
    assert "share of the estimated time, in %" in said


def test_a_broken_line_budget_says_what_takes_the_lines_time_not_a_kernel_wide_finding(cli):
    """The sigmoid's line, issue-bound (its MUFU instructions), was explained by the occupancy finding
    placed on it for having the most registers live (h24a)."""
    from conftest import KERNELS

    kernel = KERNELS / "bias_gelu.py"
    line = next(n for n, code in enumerate(kernel.read_text().splitlines(), 1) if "tl.sigmoid" in code)
    out = cli("check", kernel, "-t", "sm80", "--budget", f"line {line} <= 1%", "--json", expect=1).stdout
    (broken,) = json.loads(out)["entries"][0]["broken"]
    assert broken["finding"].startswith(f"line {line} issues "), broken
    assert "instructions (" in broken["finding"] and "occupancy" not in broken["finding"], broken


def test_a_line_budget_on_a_target_without_sass_does_not_pass_unchecked(cli):
    out = cli("check", "sample:vector_add", "--target", "gfx942", "--budget", "line 23 <= 40%", expect=1).stdout
    assert "no time estimate" in out
