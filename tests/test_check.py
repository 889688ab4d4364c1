"""`tritonscope check`: budgets, baselines, a project's entries and JUnit, through the command line."""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree

import pytest
from conftest import KERNELS

from tritonscope.cli import argtypes
from tritonscope.core.errors import UsageError
from tritonscope.core.model import Budget

ADD = ("sample:vector_add", "--target", "sm90")
BUDGETS = ("--budget", "spills=0", "--budget", "registers<=128", "--budget", "global_load_bits>=128")


def test_budgets_are_parsed_once_into_typed_limits():
    parsed = argtypes.budgets(
        ["spills=0", "registers<=128", "occupancy>=50%", "shared<=96KiB", "global_load_bits > 64"]
    )
    assert parsed == (
        Budget("spills", "==", 0, "spills=0"),
        Budget("registers", "<=", 128, "registers<=128"),
        Budget("occupancy", ">=", 50, "occupancy>=50%"),
        Budget("shared", "<=", 96 * 1024, "shared<=96KiB"),
        Budget("global_load_bits", ">", 64, "global_load_bits > 64"),
    )
    assert parsed[2].holds(50) and not parsed[2].holds(49.9) and parsed[0].holds(0) and not parsed[0].holds(1)
    assert argtypes.budgets(["occupancy>=0.8%"])[0].limit == 0.8  # said in percent: taken as said
    for bad, said in (
        ("speed<=1", "no figure named 'speed'"),
        ("registers", "expects FIGURE<=VALUE"),
        ("spills=2%", "%"),
        ("occupancy>=0.8", r"occupancy is in percent; write occupancy>=80% \(or 0.8% if you meant it\)"),
    ):
        with pytest.raises(UsageError, match=said):
            argtypes.budgets([bad])


def test_all_budgets_hold_exit_0(cli):
    out = cli("check", *ADD, "-a", "n_elements=4096", *BUDGETS, "--budget", "occupancy>=50%")
    assert out.stdout.startswith("PASS") and "4 of 4 budgets hold" in out.stdout
    assert "narrowest load 128b" in out.stdout


def test_a_block_the_target_cannot_launch_fails_whatever_its_budgets(cli):
    """64 warps are 2048 threads: dump says the launch will fail, fit that it does not fit; check said PASS."""
    out = cli("check", *ADD, "-a", "n_elements=4096", "-w", "64", "--budget", "registers<=64", expect=1).stdout
    assert out.startswith("FAIL") and "launch: 64 warps are 2048 threads; sm_90 allows 1024 per block" in out
    assert "it failed: its block cannot launch; its budget holds" in out


def test_one_kernel_and_one_budget_are_said_in_the_singular(cli):
    """Not `1 of 1 budgets hold` and `all 1 held their budgets` (issue 55); the figures line says
    occupancy and shared memory as every view does."""
    out = cli("check", *ADD, "-a", "n_elements=4096", "--budget", "spills=0").stdout
    assert "its budget holds" in out and out.rstrip().endswith("it held its budget")
    assert "1 of 1" not in out and "all 1" not in out
    assert re.search(r"shared \d+ B · occupancy 100% · narrowest load 128b, store 128b · \d+ findings?\b", out)


def test_a_broken_budget_exits_1_with_the_figure_the_limit_and_the_finding(cli):
    out = cli("check", *ADD, "-a", "n_elements=4099", *BUDGETS, expect=1)
    assert out.stdout.startswith("FAIL") and "2 of 3 budgets hold" in out.stdout
    assert "global_load_bits = 32, limit >= 128" in out.stdout
    assert "line 21: global memory accesses of 32 bits per thread" in out.stdout
    document = json.loads(cli("check", *ADD, "-a", "n_elements=4099", *BUDGETS, "--json", expect=1).stdout)
    assert document["kind"] == "check" and document["ok"] is False and document["exit_code"] == 1
    (entry,) = document["entries"]
    narrow = next(f for f in entry["findings"] if f["line"] == 21)
    assert entry["broken"] == [
        {
            "figure": "global_load_bits",
            "value": 32,
            "limit": ">= 128",
            "finding": f"line 21: {narrow['message']}",
            "unit": "",
        }
    ]
    assert entry["figures"]["global_load_bits"] == 32 and entry["figures"]["registers"] == 26


def test_a_scalars_access_is_held_to_no_width(cli, tmp_path):
    """The layer norm's per-row mean and rstd are one float each: their 32-bit stores can never be wider,
    and `global_store_bits>=128` failed on them while every tensor access was 128-bit; a baseline (its
    dump --json report) is read by the same rule."""
    budgets = ("--budget", "global_load_bits>=128", "--budget", "global_store_bits>=128")
    out = cli("check", "sample:layernorm", "-t", "sm90", *budgets).stdout
    assert out.startswith("PASS") and "narrowest load 128b, store 128b" in out
    base = tmp_path / "base.json"
    cli("check", "sample:layernorm", "-t", "sm90", "--baseline", base, "--update-baseline")
    assert "no figures worse than" in cli("check", "sample:layernorm", "-t", "sm90", "--baseline", base).stdout
    # a tensor access narrowed still breaks it: the vector add at a size of no divisibility hint
    narrowed = cli("check", *ADD, "-a", "n_elements=4099", *budgets, expect=1).stdout
    assert "global_load_bits = 32, limit >= 128" in narrowed and "global_store_bits = 32" in narrowed


def test_bad_usage_exits_2(cli):
    assert "no figure named 'speed'" in cli("check", *ADD, "--budget", "speed<1", expect=2).stderr
    assert "nothing to check" in cli("check", *ADD, expect=2).stderr
    assert "need a FILE" in cli("check", "--target", "sm80", "--budget", "spills=0", expect=2).stderr
    assert "needs --baseline" in cli("check", *ADD, "--budget", "spills=0", "--update-baseline", expect=2).stderr


def test_a_line_budget_on_a_line_the_kernel_lacks_is_refused_as_dump_refuses_it(cli, tmp_path):
    """Issue 55 item 3: `line 1000 <= 0%` held 0% and passed."""
    said = cli("dump", "sample:matmul", "--line", "1000", "-t", "sm90", expect=2).stderr.split("error: ")[1].strip()
    assert said.startswith("line 1000 is outside matmul_kernel (lines ")
    out = cli("check", "sample:matmul", "-t", "sm90", "--budget", "line 1000 <= 0%", expect=2).stderr
    assert f"budget 'line 1000 <= 0%': {said}" in out and "held" not in out
    project = tmp_path / "pyproject.toml"
    project.write_text(
        '[[tool.tritonscope.check]]\nfile = "sample:vector_add"\nflags = "-t sm90"\nbudgets = ["line 999 <= 5%"]\n'
        '[[tool.tritonscope.check]]\nfile = "sample:vector_add"\nflags = "-t sm90"\nbudgets = ["line 21 <= 100%"]\n'
    )
    document = json.loads(cli("check", "--project", project, "--json", expect=2).stdout)
    errors = [entry["error"] for entry in document["entries"]]
    assert "line 999 is outside add_kernel" in errors[0] and errors[1] is None


def test_a_baseline_is_written_then_held(cli, tmp_path):
    base = tmp_path / "base.json"
    written = cli("check", "sample:matmul", "-t", "sm80", "--baseline", base, "--update-baseline").stdout
    assert "no figures worse" not in written and "the baseline now" in written  # nothing was held to it
    assert written.rstrip().endswith("its baseline was written")
    saved = json.loads(base.read_text())
    dumped = json.loads(cli("dump", "sample:matmul", "-t", "sm80", "--json").stdout)
    registers = dumped["resources"]["registers"]  # 167 with Triton 3.6, 183 with 3.9
    assert saved["kind"] == "dump" and saved["resources"]["registers"] == registers
    same = cli("check", "sample:matmul", "-t", "sm80", "--baseline", base)
    assert "no figures worse than" in same.stdout and same.stdout.rstrip().endswith("it held its baseline")
    worse = cli("check", "sample:matmul", "-t", "sm80", "-w", "4", "--baseline", base, expect=1)
    fewer_warps = json.loads(cli("dump", "sample:matmul", "-t", "sm80", "-w", "4", "--json").stdout)
    assert fewer_warps["resources"]["registers"] > registers
    assert f"registers = {fewer_warps['resources']['registers']}, limit baseline {registers}" in worse.stdout
    assert "limited by registers" in worse.stdout  # the finding behind it
    # another variant than the baseline's, compared all the same, and said (h24a: another autotune config)
    said = " ".join(worse.stdout.split())
    warps = saved["variant"]["options"]["num_warps"]  # the sample's file gives 8
    assert f"--baseline {base} is of another variant (num_warps={warps}; this one num_warps=4)" in said, said
    assert "another variant" not in same.stdout
    assert worse.stdout.rstrip().endswith("it failed: 1 figure worse than " + str(base))
    other = cli("check", "sample:vector_add", "-t", "sm80", "--baseline", base, expect=2)
    assert "a report of matmul_kernel, not of add_kernel" in other.stderr


def test_a_baseline_not_written_yet_says_how_to_write_it(cli, tmp_path):
    """A pyproject's baseline is written by the first --update-baseline; before, check said "not a
    `tritonscope dump --json` report: No such file or directory" (h19c)."""
    missing = tmp_path / "base.json"
    said = cli("check", "sample:vector_add", "-t", "sm80", "--baseline", missing, expect=2).stderr
    assert f"--baseline {missing} does not exist yet" in said and "--update-baseline" in said


def test_a_baselines_limit_is_said_in_its_figures_unit():
    """`occupancy = 25, limit baseline 75` had no `%` (h19a); a size is said as the budgets say it."""
    from tritonscope.app.check import against_baseline

    broken = {
        b.figure: b
        for b in against_baseline({"occupancy": 75.0, "shared": 65536}, {"occupancy": 25.0, "shared": 98304}, ())
    }
    assert broken["occupancy"].limit == "baseline 75%" and broken["occupancy"].unit == "%"
    assert broken["shared"].limit == "baseline 65,536 B (64 KiB)" and broken["shared"].unit == " B"
    # the value is said as the limit is, in every view: the JUnit file said `shared = 98304` (h24a)
    assert broken["shared"].value_said == "98,304 B (96 KiB)" and broken["occupancy"].value_said == "25%"


def test_a_projects_entries_run_isolated_with_a_junit_report(cli, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        f"""
[tool.tritonscope]
budgets = ["spills=0"]

[[tool.tritonscope.check]]
file = "sample:vector_add"
flags = "-a n_elements=4096 -t sm90"
budgets = ["global_load_bits>=128"]

[[tool.tritonscope.check]]
name = "add, odd size"
file = "sample:vector_add"
flags = ["-a", "n_elements=4099", "-t", "sm90"]
budgets = ["global_load_bits>=128"]

[[tool.tritonscope.check]]
name = "crashes"
file = "{KERNELS / "crashy.py"}"
flags = "-a n=11 -t sm90"
"""
    )
    monkeypatch.chdir(tmp_path)
    out = cli("check", "--junit", "report.xml", "-j", "2", expect=1)
    assert out.stdout.count("PASS") == 1 and out.stdout.count("FAIL") == 1 and out.stdout.count("ERROR") == 1
    assert "crashed (SIGSEGV)" in out.stdout and "2 of 3 failed" in out.stdout
    suite = ElementTree.parse(tmp_path / "report.xml").getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert list(cases["sample:vector_add -a n_elements=4096 -t sm90"]) == []
    (failure,) = cases["add, odd size"].iter("failure")
    assert failure.get("message") == "global_load_bits = 32, limit >= 128" and "line 21" in failure.text
    assert "SIGSEGV" in next(cases["crashes"].iter("error")).get("message")


def test_a_bad_project_entry_is_named(cli, tmp_path):
    project = tmp_path / "pyproject.toml"
    project.write_text('[[tool.tritonscope.check]]\nfile = "k.py"\nflags = "--bogus 1"\n')
    assert "#1: '--bogus' is not a variant flag" in cli("check", "--project", project, expect=2).stderr
    project.write_text("[tool.other]\n")
    assert "no [[tool.tritonscope.check]] entries" in cli("check", "--project", project, expect=2).stderr


def test_a_long_entry_name_is_folded_not_cut_at_80_columns():
    """A capture's compiles are named `DIR/:NAME@HASH8 [constexprs]`; Inductor's long names were cut at
    80 columns with `…`, taking the hash that tells two compiles apart."""
    from tritonscope.core.model import CheckEntry, VariantRequest
    from tritonscope.render.terminal.base import Terminal
    from tritonscope.render.terminal.check import CheckView
    from tritonscope.results.check import CheckResult, EntryOutcome

    name = "cap/:triton_per_fused__to_copy__unsafe_view_add_embedding_mean_mul_pow_rsqrt_3@283d7b17 [XBLOCK=1]"
    entry = CheckEntry(name, VariantRequest(file="sample:double"))
    shown = CheckView(Terminal(80, False)).render(CheckResult((EntryOutcome(entry, figures={"compiles_after_x": 0}),)))
    lines = shown.splitlines()
    assert all(len(line) <= 80 for line in lines) and "…" not in shown
    assert "@283d7b17 [XBLOCK=1]" in " ".join(lines[:2]).replace("  ", " ")
