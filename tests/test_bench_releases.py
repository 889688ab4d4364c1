"""`bench ... --vary triton=A,B`: on the CPU, everything up to the launch (the plan of one worker
per release, the passes compared, the errors); on a GPU (marked gpu), the timings themselves."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import KERNELS

from tritonscope.app.bench_releases import divergence, plan
from tritonscope.app.walk import releases
from tritonscope.triton_api import version


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    from conftest import Cli

    out = tmp_path_factory.mktemp("bench") / "run"
    Cli()("trace", "--target", "sm90", "-o", out, "--", sys.executable, KERNELS / "launch_program.py")
    return out


def test_each_release_runs_in_a_worker_of_its_own_interpreter(capture):
    running = version.installed()
    tasks = plan(f"{capture}/:add_kernel", (running, running), [], {})
    assert [t.function for t in tasks] == ["tritonscope.app.bench:replay"] * 2
    assert [t.args for t in tasks] == [(f"{capture}/:add_kernel",)] * 2 and {t.python for t in tasks} == {None}
    (file_task,) = plan("sample:vector_add", (running,), [4096], {"scale": 2})
    assert file_task.function == "tritonscope.app.bench:bench" and file_task.args == (
        "sample:vector_add",
        [4096],
        [],
        {"scale": 2},
    )
    assert releases.python_for(running) is None


def test_the_passes_of_two_releases_are_compared_on_the_cpu(capture):
    running = version.installed()
    comparison, problem = divergence(f"{capture}/:add_kernel", None, (running, running), 300)
    assert problem is None and comparison.divergence.kind == "none"
    assert comparison.results[0].variant.constexprs == {"BLOCK": 256}  # the captured specialization
    assert len(comparison.results[0].records) > 10


def test_bench_across_releases_says_what_it_needs(cli, capture):
    running = version.installed()
    out = cli("bench", f"{capture}/:add_kernel", "--vary", f"triton={running},{running}", expect=2).stderr
    assert "runs kernels on a GPU, and none is visible here" in out
    alone = cli("bench", "sample:vector_add", "--vary", f"triton={running}", "--vary", "BLOCK_SIZE=256", expect=2)
    assert "times two releases or more, alone" in alone.stderr
    assert "is not a Triton release" in cli("bench", "sample:vector_add", "--vary", "triton=x,y", expect=2).stderr


@pytest.mark.gpu
def test_the_same_launches_timed_under_each_release(cli):
    running = version.installed()
    doc = json.loads(
        cli("bench", "sample:vector_add", "--size", "2**22", "--vary", f"triton={running},{running}", "--json").stdout
    )
    assert doc["kind"] == "bench releases" and doc["errors"] == [None, None]
    assert all(run["results"][0]["correct"] for run in doc["runs"])
    (row,) = doc["ratios"]
    assert row["ratios"][0] == 1.0 and 0.5 < row["ratios"][1] < 2.0
    assert doc["passes"]["divergence"]["kind"] == "none"
