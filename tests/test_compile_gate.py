"""The gate on compiles after the warmup: `check DIR/ --no-compiles-after warmup`, the budget
`compiles_after_warmup=0` in check's syntax and in the agent server's capture_check, on a capture
with late compiles (tritonscope.mark) and one without (the mark set through $TRITONSCOPE_MARK)."""

from __future__ import annotations

import json
import re
import sys

import pytest
from conftest import KERNELS

PROGRAM = KERNELS / "recompile_program.py"
RULES = ("divisible", "one", "aligned", "bias", "dtype", "row", "wide", "warps")  # each compiles again after it


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    from conftest import Cli

    root, cli = tmp_path_factory.mktemp("gate"), Cli()
    cli("trace", "--target", "sm90", "-o", root / "late", "--", sys.executable, PROGRAM)
    cli("trace", "--target", "sm90", "-o", root / "steady", "--", sys.executable, PROGRAM, "--no-late", "--env-mark")
    return root


def test_a_compile_after_the_mark_fails_naming_the_kernel_the_cause_and_the_line(cli, captures):
    out = cli("check", captures / "late", "--no-compiles-after", "warmup", expect=1).stdout
    flat = " ".join(out.split())
    assert out.startswith("FAIL") and "8 of 8 failed" in flat
    assert not [line for line in out.splitlines() if line.endswith(" ")]  # a CI log keeps no padding
    line = 1 + PROGRAM.read_text().splitlines().index(
        "    k.divisible_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)"
    )
    assert (
        "divisible_kernel compiled again: `n_elements` was divisible by 16 in variant 1 and is not in variant 2 "
        f"(n_elements=4099); launched at recompile_program.py:{line}; compile 1 of the capture's 8 after warmup"
    ) in flat
    # the count is the capture's, said so on each compile's entry (it read as each kernel's own), and once
    # for all of them rather than three lines in each of 8 entries (326 lines for a generate()'s 32);
    # the compiles in the order the program made them
    assert re.findall(r"compile (\d) of the capture's 8 after warmup", flat) == [str(n) for n in range(1, 9)]
    assert flat.count("the capture's compiles after warmup: 8, limit = 0: each entry above is one of them") == 1
    assert "its budget is broken" not in flat and len(out.splitlines()) < 8 * 6
    # at 80 columns too: the once-said line was wrapped with a space left at the end of its first part
    from typer.testing import CliRunner

    from tritonscope.cli.runner import app

    narrow = CliRunner().invoke(app, ["check", str(captures / "late"), "--no-compiles-after", "warmup"],
                                env={"COLUMNS": "80"})  # fmt: skip
    assert narrow.exit_code == 1 and not [line for line in narrow.stdout.splitlines() if line.endswith(" ")]
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 80


def test_the_gate_in_checks_json(cli, captures):
    doc = json.loads(cli("check", captures / "late", "--budget", "compiles_after_warmup=0", "--json", expect=1).stdout)
    assert doc["ok"] is False and doc["exit_code"] == 1
    names = [e["name"].rsplit(":", 1)[1].split("@")[0] for e in doc["entries"]]
    assert sorted(names) == sorted(f"{rule}_kernel" for rule in RULES)
    broken = {e["name"].rsplit(":", 1)[1].split("@")[0]: e["broken"][0] for e in doc["entries"]}
    assert broken["one_kernel"]["figure"] == "compiles_after_warmup" and broken["one_kernel"]["value"] == 8
    assert broken["one_kernel"]["limit"] == "= 0"
    assert broken["one_kernel"]["finding"].startswith("one_kernel compiled again: `n_rows` equals 1 in variant 2")
    assert "a new dtype for `x_ptr`: *fp32 in variant 1, *fp16 in variant 2" in broken["dtype_kernel"]["finding"]


def test_no_compile_after_the_mark_passes_and_a_budget_of_a_few_holds(cli, captures):
    doc = json.loads(cli("check", captures / "steady", "--no-compiles-after", "warmup", "--json").stdout)
    assert doc["ok"] is True and [e["figures"] for e in doc["entries"]] == [{"compiles_after_warmup": 0}]
    marks = [json.loads(line) for line in (captures / "steady" / "marks.jsonl").read_text().splitlines()]
    assert [(m["mark"], m["via"]) for m in marks] == [("warmup", "environment")]
    # noticed as os.environ is set, at the program's line: at the next compile or launch, a torch.compile
    # frame compiled first was dated before it (the gate passed it) and the line was the launch's (h20b)
    line = 1 + PROGRAM.read_text().splitlines().index('        os.environ[ENV_MARK] = "warmup"')
    assert marks[0]["call_site"] == {"file": str(PROGRAM), "line": line}
    assert cli("check", captures / "late", "--budget", "compiles_after_warmup<=8").stdout.startswith("PASS")


def test_the_flag_and_a_budget_on_one_mark_count_each_compile_once(cli, captures):
    # --no-compiles-after warmup with --budget compiles_after_warmup<=2: one count held to both limits,
    # each compile one entry ("16 of 16 failed" and every cause said twice before, h20b)
    given = ("--no-compiles-after", "warmup", "--budget", "compiles_after_warmup<=2")
    out = cli("check", captures / "late", *given, expect=1).stdout
    flat = " ".join(out.split())
    assert "8 of 8 failed" in flat
    assert flat.count(" of the capture's 8 after warmup") == 8
    assert "compiles after warmup: 8, limit <= 2 and = 0: each entry above is one of them" in flat
    doc = json.loads(cli("check", captures / "late", *given, "--json", expect=1).stdout)
    assert len(doc["entries"]) == 8
    # the first two break `= 0` alone: `<= 2` is broken from the third on
    assert [tuple(b["limit"] for b in e["broken"]) for e in doc["entries"]] == [("= 0",)] * 2 + [("<= 2", "= 0")] * 6
    held = json.loads(cli("check", captures / "late", "--budget", "compiles_after_warmup<=8", *given[2:], "--json",
                          expect=1).stdout)  # fmt: skip
    assert len(held["entries"]) == 8 and [len(e["broken"]) for e in held["entries"]] == [0, 0] + [1] * 6


def test_a_budget_of_a_few_fails_the_compiles_past_it_not_those_within(cli, captures):
    # `<= 2` over 8 compiles: the third on broke it; all eight were FAIL, each JSON entry broken (h25a)
    out = cli("check", captures / "late", "--budget", "compiles_after_warmup<=2", expect=1).stdout
    flat = " ".join(out.split())
    assert [line.split()[0] for line in out.splitlines() if line.startswith(("PASS", "FAIL"))] == ["PASS"] * 2 + [
        "FAIL"
    ] * 6
    assert "6 of 8 failed" in flat
    assert "limit <= 2: the first 2 are within it, the 6 after them past it" in flat
    # a compile within the limit still says why it came
    first = out.split("PASS", 2)[1]
    assert "compiled again:" in first and "compile 1 of the capture's 8 after warmup" in " ".join(first.split())
    doc = json.loads(cli("check", captures / "late", "--budget", "compiles_after_warmup<=2", "--json", expect=1).stdout)
    assert [e["ok"] for e in doc["entries"]] == [True, True] + [False] * 6
    assert doc["entries"][0]["why"].endswith("compile 1 of the capture's 8 after warmup")
    assert "compile 3 of the capture's 8 after warmup" in doc["entries"][2]["broken"][0]["finding"]
    assert "why" not in doc["entries"][2]  # said once, as the broken budget's finding


def test_the_budget_is_a_captures_and_the_mark_must_exist(cli, captures):
    said = cli("check", "sample:vector_add", "-t", "sm90", "--budget", "compiles_after_warmup=0", expect=2).stderr
    assert "counts a capture's compiles after the program's mark" in said
    said = cli("check", captures / "late", "--no-compiles-after", "serving", expect=2).stderr
    assert "the program never passed a mark named 'serving' (its marks: warmup)" in said
    assert (
        "a count of compiles has no unit"
        in cli("check", captures / "late", "--budget", "compiles_after_warmup<=1KiB", expect=2).stderr
    )


def test_the_agent_servers_capture_check_holds_the_same_budget(captures):
    from test_agent import serving, structured

    async def check(client):
        late = {"folder": str(captures / "late"), "budgets": ["compiles_after_warmup=0"]}
        held = structured(await client.call_tool("capture_check", late))
        assert held["ok"] is False and len(held["entries"]) == len(RULES)
        assert all(e["broken"][0]["figure"] == "compiles_after_warmup" for e in held["entries"])
        steady = {"folder": str(captures / "steady"), "budgets": ["compiles_after_warmup=0"]}
        assert structured(await client.call_tool("capture_check", steady))["ok"] is True

    serving(check)


def test_a_program_that_compiled_no_kernel_is_a_capture_the_gate_passes(cli, tmp_path):
    """The gate's best case (it was refused: "not a capture", no kernels.jsonl); the commands that
    need a kernel say there is none, with exit 2."""
    program = tmp_path / "plain.py"
    program.write_text("import tritonscope\ntritonscope.mark('warmup')\nprint(sum(range(10)))\n")
    cli("trace", "--target", "sm90", "-o", tmp_path / "cap", "--", sys.executable, program)
    out = cli("check", tmp_path / "cap", "--no-compiles-after", "warmup").stdout
    assert out.startswith("PASS") and "the capture's compiles after warmup: 0" in out
    said = cli("fit", tmp_path / "cap", expect=2).stderr
    assert "is a capture of a program that compiled no Triton kernel: nothing to fit" in said
    said = cli("check", tmp_path / "cap", "--fit", "sm86", expect=2).stderr  # was `all 0 held their budgets`
    assert "compiled no Triton kernel: nothing to hold to --fit" in said


def test_a_compile_record_cut_short_is_no_pass(cli, captures, tmp_path):
    """A line of kernels.jsonl cut short (a run killed while writing) may be a late compile: the gate
    says it cannot be held (exit 2, naming the line), where it counted one compile fewer and said nothing."""
    import shutil

    damaged = tmp_path / "damaged"
    shutil.copytree(captures / "steady", damaged)
    log = damaged / "kernels.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:-1]) + lines[-1][:60] + "\n")
    said = cli("check", damaged, "--no-compiles-after", "warmup", expect=2).stderr
    assert f"the gate cannot be held: {log}:{len(lines)}: not a compile record" in " ".join(said.split())


def test_a_compile_whose_record_is_cut_short_says_its_signature_is_unknown(cli, captures, tmp_path):
    """`dump DIR/:NAME` of the compile whose kernels.jsonl line was cut showed a blank signature as the
    launched compile's, with nothing said of why."""
    import json
    import shutil

    damaged = tmp_path / "damaged"
    shutil.copytree(captures / "steady", damaged)
    log = damaged / "kernels.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    last = json.loads(lines[-1])
    log.write_text("".join(lines[:-1]) + lines[-1][:60] + "\n")
    done = cli("dump", f"{damaged}/:{last['name']}@{last['hash'][:8]}", "--stage", "ttir")
    said = " ".join((done.stderr + done.stdout).split())
    assert f"kernels.jsonl holds no readable record of this compile (@{last['hash'][:8]}): its signature" in said
    assert "signature not recorded (read from a cache)" in said


def test_any_mark_name_a_missing_folder_and_an_unreadable_mark_each_said_as_such(cli, captures, tmp_path):
    """A mark `recompiles --after` takes ("end of warmup", "a=b") was refused by check as a malformed
    --budget; a folder that is not there was "not a kernel's figure"; a marks.jsonl cut short read as
    "it marked nothing"."""
    import shutil

    odd = tmp_path / "odd"
    shutil.copytree(captures / "steady", odd)
    marks = odd / "marks.jsonl"
    marks.write_text(marks.read_text().replace('"warmup"', '"end of warmup=a<b"'))
    out = cli("check", odd, "--no-compiles-after", "end of warmup=a<b").stdout
    assert out.startswith("PASS") and "compiles after end of warmup=a<b: 0" in " ".join(out.split())
    missing = cli("check", tmp_path / "nope", "--no-compiles-after", "warmup", expect=2).stderr
    assert "no such file: " in missing and "nope" in missing and "kernel's figure" not in missing
    assert "needs a mark's name" in cli("check", odd, "--no-compiles-after", "", expect=2).stderr
    marks.write_text(marks.read_text()[:30] + "\n")
    cut = " ".join(cli("check", odd, "--no-compiles-after", "end of warmup=a<b", expect=2).stderr.split())
    assert f"no mark named 'end of warmup=a<b' can be read, and {marks}:1: not a mark record" in cut
    assert "it marked nothing" not in cut


def test_a_functions_first_torch_compile_after_the_mark_fails_the_gate(cli, tmp_path):
    """`late` is first called after the mark: its frame compile was skipped as a function's first, and
    the gate passed with 0 compiles after warmup (h19b)."""
    out = tmp_path / "run"
    cli("trace", "--target", "sm90", "-o", out, "--", sys.executable, KERNELS / "late_first_compile.py")
    failed = cli("check", out, "--no-compiles-after", "warmup", expect=1).stdout
    assert "torch.compile late (" in failed and "compiles_after_warmup = 1, limit = 0" in failed
    assert "compiled `late` for the first time: it was not called before the mark" in " ".join(failed.split())
    assert "torch.compile warm" not in failed
