"""Whole captures side by side: `diff DIR1/ DIR2/`, `-k NAME --stage`, `--vary triton=` over a
capture, and the errors a capture folder can give. The captures are real: `tritonscope trace`
of a program that compiles its kernels with the real Triton, on the CPU."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from conftest import KERNELS

PROGRAM = KERNELS / "launch_program.py"


def trace(cli, out, *flags, target="sm90"):
    """A capture made on this CPU: the program runs against a simulated GPU of `target`."""
    cli("trace", "--target", target, "-o", out, "--", sys.executable, PROGRAM, *flags)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from conftest import Cli

    cli, root = Cli(), tmp_path_factory.mktemp("captures")
    before = trace(cli, root / "before")
    return {
        "before": before,
        "again": trace(cli, root / "again"),
        "after": trace(cli, root / "after", "--after"),
        "sm80": trace(cli, root / "sm80", target="sm80"),
    }


def statuses(document) -> dict[str, str]:
    return {k["name"]: k["status"] for k in document["kernels"]}


def test_diff_names_the_changed_and_the_removed_kernel_and_the_rest_same(cli, runs):
    doc = json.loads(cli("diff", runs["before"], runs["after"], "--json").stdout)
    assert doc["kind"] == "capture diff"
    assert statuses(doc) == {
        "add_kernel": "changed",
        "relu_kernel": "removed",
        "row_sum_kernel": "same",
        "scale_kernel": "same",
    }
    assert doc["counts"] == {"same": 3, "changed": 1, "added": 0, "removed": 1, "regressed": 1}
    scales = [k for k in doc["kernels"] if k["name"] == "scale_kernel"]  # two compiles, each with its own
    assert [(k["paired"], k["before"]["specialization"]["constexprs"]) for k in scales] == [
        ("exact", {"BLOCK": "1024"}),
        ("exact", {"BLOCK": "256"}),
    ]
    assert [k["after"]["specialization"]["hints"] for k in scales] == [
        {"n": "D", "out_ptr": "D", "x_ptr": "D"},
        {"out_ptr": "D", "x_ptr": "D"},
    ]
    add = next(k for k in doc["kernels"] if k["name"] == "add_kernel")
    assert add["paired"] == "specialization changed: BLOCK 256 -> 512; launch shapes differ"
    assert add["before"]["specialization"]["constexprs"] == {"BLOCK": "256"}
    assert add["after"]["specialization"]["constexprs"] == {"BLOCK": "512"}
    changes = {c["figure"]: c for c in add["changes"]}
    registers = changes["registers"]
    assert registers["after"] - registers["before"] == registers["delta"] > 0 and registers["regression"]
    assert add["before"]["figures"]["registers"] == registers["before"]
    wider = changes["global_load_bits"]  # more elements per thread: wider loads, not a regression
    assert wider["after"] == 2 * wider["before"] and not wider["regression"]
    assert [f.split(":")[0] for f in add["findings_appeared"]] == ["narrow-global-access"]
    assert add["before"]["launch_shapes"] == ["grid 32x1x1: f16[8192] f16[8192] f16[8192]"]
    assert add["after"]["launch_shapes"] == ["grid 16x1x1: f16[8192] f16[8192] f16[8192]"]
    removed = next(k for k in doc["kernels"] if k["name"] == "relu_kernel")
    assert removed["after"] is None and removed["before"]["reference"].endswith(
        ":relu_kernel@" + removed["before"]["hash"][:8]
    )
    same = next(k for k in doc["kernels"] if k["name"] == "scale_kernel")
    assert same["changes"] == [] and same["before"]["figures"] == same["after"]["figures"]


def test_the_view_fits_80_columns_and_marks_the_regression(tmp_path, runs):
    from cli_process import tritonscope

    proc = tritonscope("diff", runs["before"], runs["after"], env={"COLUMNS": "80"})
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any(line.startswith("add_kernel [BLOCK=512]") and line.endswith("changed (worse)") for line in lines)
    assert any(line.startswith("relu_kernel [BLOCK=1024]") and line.endswith("removed") for line in lines)
    assert "    paired: specialization changed: BLOCK 256 -> 512; launch shapes differ" in lines
    assert any(line.startswith("    registers ") and line.endswith(" worse") for line in lines)
    assert all(line == line.rstrip() for line in lines)
    assert lines[-1] == "5 kernel compiles: 3 same, 1 changed (1 worse), 0 added, 1 removed"


def test_capture_folders_with_spaces_are_named_whole_in_the_heading(tmp_path, runs):
    """The heading `BEFORE -> AFTER` folded at the spaces of the folders' names: a path cut in two
    cannot be copied. Each is kept whole, on a line of its own where the width is short."""
    import shutil

    from cli_process import tritonscope

    folder = tmp_path / "a folder named with spaces"
    before, after = folder / "run one", folder / "run two"
    shutil.copytree(runs["before"], before)
    shutil.copytree(runs["after"], after)
    lines = tritonscope("diff", before, after, env={"COLUMNS": "40"}).stdout.splitlines()
    assert lines[:3] == [str(before), "    ->", f"    {after}"], lines[:3]


def test_a_program_traced_twice_is_the_same(cli, runs):
    doc = json.loads(cli("diff", runs["before"], runs["again"], "--json").stdout)
    assert set(statuses(doc).values()) == {"same"} and len(doc["kernels"]) == 5 and doc["notes"] == []


def test_one_kernels_stage_diff(cli, runs):
    doc = json.loads(cli("diff", runs["before"], runs["after"], "-k", "add_kernel", "--stage", "sass", "--json").stdout)
    assert doc["kind"] == "diff" and len(doc["variants"]) == 2
    assert [v["label"]["capture"] for v in doc["variants"]] == [str(runs["before"]), str(runs["after"])]
    (sass,) = doc["diffs"]
    assert sass["stage"] == "sass" and sass["changed"]
    assert any(line.startswith("+") and "LDG" in line for line in sass["unified"])
    out = cli("diff", runs["before"], runs["after"], "-k", "nope", expect=2).stderr
    assert "-k nope: no kernel of that name" in out and "add_kernel" in out


def test_vary_triton_over_a_capture_recompiles_every_kernel(cli, runs):
    doc = json.loads(cli("diff", runs["after"], "--vary", "triton=3.6.0,3.6.0", "--json").stdout)
    assert doc["before"] == doc["after"] == "triton=3.6.0"
    assert statuses(doc) == dict.fromkeys(["add_kernel", "row_sum_kernel", "scale_kernel"], "same")
    first = doc["kernels"][0]
    assert first["before"]["figures"] == first["after"]["figures"] and first["before"]["figures"]["registers"] > 0


def test_captures_of_different_targets_are_diffed_with_a_warning(cli, runs):
    doc = json.loads(cli("diff", runs["before"], runs["sm80"], "--json").stdout)
    assert "different targets (sm90 and sm80)" in doc["notes"][0]
    assert set(statuses(doc).values()) == {"changed"}
    assert {k["after"]["target"] for k in doc["kernels"]} == {"sm80"}
    out = cli("diff", runs["before"], runs["sm80"]).stdout
    assert out.startswith("note: the captures were made for different targets")


def test_a_capture_of_another_release_is_said(cli, runs, tmp_path):
    other = shutil.copytree(runs["before"], tmp_path / "other")
    for meta in (other / "cache").glob("*/*_kernel.json"):
        metadata = json.loads(meta.read_text())
        meta.write_text(json.dumps({**metadata, "triton_version": "3.5.1"}))
    doc = json.loads(cli("diff", other, runs["before"], "--json").stdout)
    import triton

    running = triton.__version__
    assert doc["notes"] == [f"the captures were made with different Triton releases: 3.5.1 and {running}"]


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("empty", "not a capture: it has no kernels.jsonl and no compiled kernels"),
        ("plain", "not a capture: it has no kernels.jsonl and no compiled kernels (1 file that Triton did not write)"),
        ("missing", "no such directory"),
        ("cubin", "a damaged capture (1 problem):"),
        ("metadata", "add_kernel.json: not JSON"),
        ("artifacts", "has no artifacts in cache/"),
    ],
)
def test_bad_capture_folders_get_one_clear_message(cli, runs, tmp_path, damage, message):
    folder = tmp_path / "bad"
    if damage == "empty":
        folder.mkdir()
    elif damage == "plain":  # a folder of the user's own: not a damaged capture (issue 55)
        (folder / "notes").mkdir(parents=True)
        (folder / "notes" / "settings.json").write_text('{"BLOCK": 128}')
        (folder / "kernel.py").write_text("import triton\n")
    elif damage != "missing":
        shutil.copytree(runs["before"], folder)
        entry = next(p.parent for p in (folder / "cache").glob("*/add_kernel.json"))
        if damage == "cubin":
            (entry / "add_kernel.cubin").unlink()
        elif damage == "metadata":
            (entry / "add_kernel.json").write_text("{cut sho")
        else:
            shutil.rmtree(entry)
    result = cli("diff", runs["before"], folder, expect=2)
    assert message in result.stderr and result.stdout == ""
    assert ("damaged" in result.stderr) == (damage in ("cubin", "metadata", "artifacts"))
    if damage in ("cubin", "metadata"):
        assert "trace the program again" in result.stderr


def test_flags_that_do_not_apply_to_captures(cli, runs):
    assert (
        "variant flags (num_warps) do not apply"
        in cli("diff", runs["before"], runs["after"], "-w", "8", expect=2).stderr
    )
    out = cli("diff", runs["before"], expect=2).stderr
    assert "give a second one (diff DIR1/ DIR2/) or --vary triton=A,B" in out
    assert (
        "--vary does not apply to two captures"
        in cli("diff", runs["before"], runs["after"], "--vary", "triton=3.6.0,3.6.0", expect=2).stderr
    )
    assert (
        "--html and --configs are for a kernel file"
        in cli("diff", runs["before"], runs["after"], "--html", "x.html", expect=2).stderr
    )
    assert "only for comparing two capture folders" in cli("diff", "sample:vector_add", runs["after"], expect=2).stderr


def test_check_a_capture_against_budgets_and_a_baseline_capture(cli, runs, tmp_path):
    from xml.etree import ElementTree

    report = tmp_path / "report.xml"
    flags = ["--budget", "spills=0", "--baseline", runs["before"], "--junit", report]
    result = cli("check", runs["after"], *flags, "--json", expect=1)
    doc = json.loads(result.stdout)
    failed = {e["name"].split("/:")[1].split("@")[0]: e for e in doc["entries"] if not e["ok"]}
    assert list(failed) == ["add_kernel"] and len(doc["entries"]) == 4
    broken = {(b["figure"], b["limit"]) for b in failed["add_kernel"]["broken"]}
    before = json.loads(cli("diff", runs["before"], runs["after"], "--json").stdout)
    add = next(k for k in before["kernels"] if k["name"] == "add_kernel")
    assert broken == {("registers", f"baseline {add['before']['figures']['registers']}")}
    assert doc["notes"] == [
        f"{runs['before']}/:relu_kernel@{_hash(runs['before'], 'relu_kernel')[:8]}: no longer compiled"
    ]
    suite = ElementTree.parse(report).getroot()
    assert suite.get("tests") == "4" and suite.get("failures") == "1"
    cases = {c.get("classname"): c for c in suite.iter("testcase")}
    assert set(cases) == {"add_kernel", "row_sum_kernel", "scale_kernel"}
    assert [f.get("type") for f in cases["add_kernel"].iter("failure")] == [
        b["figure"] for b in failed["add_kernel"]["broken"]
    ]
    held = cli("check", runs["again"], "--baseline", runs["before"], "--budget", "spills=0").stdout
    assert held.rstrip().endswith("all 5 held their budgets")
    budget = cli("check", runs["before"], "--budget", "shared<=1024", expect=1).stdout
    assert "shared = 1,040 B (1.016 KiB), limit <= 1024 B" in budget and "1 of 5 failed" in budget  # row_sum's


def _hash(folder, name) -> str:
    return next(p.parent.name for p in (folder / "cache").glob(f"*/{name}.json"))


def test_check_a_capture_refuses_what_does_not_apply(cli, runs, tmp_path):
    assert "nothing to check" in cli("check", runs["after"], expect=2).stderr
    report = tmp_path / "r.json"
    report.write_text("{}")
    out = cli("check", runs["after"], "--baseline", report, expect=2).stderr
    assert "the baseline is a capture folder too" in out
    assert (
        "does not apply to a capture"
        in cli("check", runs["after"], "--baseline", runs["before"], "--update-baseline", expect=2).stderr
    )
    assert "not a capture" in cli("check", tmp_path, "--budget", "spills=0", expect=2).stderr


def test_two_triton_cache_folders_are_paired_by_name_source_and_options(cli, tmp_path, monkeypatch):
    from conftest import make_request

    from tritonscope.app.walk.prepare import compile_request

    for folder, block in (("one", "256"), ("two", "1024")):
        monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / folder))
        compile_request(make_request("sample:vector_add", constexprs=[f"BLOCK_SIZE={block}"]))
    doc = json.loads(cli("diff", tmp_path / "one", tmp_path / "two", "--json").stdout)
    (add,) = doc["kernels"]
    assert add["status"] == "changed" and "a Triton cache folder records no specialization" in add["paired"]
    assert add["before"]["specialization"]["constexprs"] == {} and add["before"]["figures"]["registers"] > 0


def test_vary_triton_needs_the_captured_source(cli, runs, tmp_path):
    moved = shutil.copytree(runs["after"], tmp_path / "moved")
    log = moved / "kernels.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    log.write_text("".join(json.dumps({**r, "file": "/nowhere/program_kernels.py"}) + "\n" for r in records))
    out = cli("diff", moved, "--vary", "triton=3.6.0,3.6.0", expect=2).stderr
    assert "--vary triton=" in out and "/nowhere/program_kernels.py is not there to compile from" in out
    assert json.loads(cli("diff", moved, runs["after"], "--json").stdout)["counts"]["same"] == 4  # read, not compiled


def test_check_a_capture_holds_a_line_to_its_share_of_the_estimated_time(cli, runs):
    """`check DIR/ --budget 'line 19 <= 50%'`: line 19 of program_kernels.py is all of add_kernel
    (its loads, the add and the store); the other kernels have no line 19, are not held to it, and a
    note says so. A line no kernel of the capture has is refused, as `dump --line` refuses it."""
    doc = json.loads(cli("check", runs["before"], "--budget", "line 19 <= 50%", "--json", expect=1).stdout)
    failed = {e["name"].split("/:")[1].split("@")[0]: e for e in doc["entries"] if not e["ok"]}
    assert list(failed) == ["add_kernel"] and len(doc["entries"]) == 5
    broken = failed["add_kernel"]["broken"]
    assert [b["figure"] for b in broken] == ["line 19"] and broken[0]["value"] > 50
    assert "budget 'line 19 <= 50%': line 19 is outside relu_kernel, " in " ".join(doc["notes"])
    cli("check", runs["before"], "--budget", "line 19 <= 100%")
    out = cli("check", runs["before"], "--budget", "line 1000 <= 0%", expect=2).stderr
    assert "budget 'line 1000 <= 0%': line 1000 is outside every kernel of " in out and "add_kernel: lines " in out
