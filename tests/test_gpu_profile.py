"""`profile` and `bench --plot` on a real GPU, under the real ncu (marked gpu: skipped where no GPU
is visible, as in CI). On the H100, ncu is /usr/local/cuda/bin/ncu (found there when not on PATH)."""

from __future__ import annotations

import json
import re
import sys

import pytest
from cli_process import tritonscope

from tritonscope.core.samples import sample_path

pytestmark = pytest.mark.gpu


def _line_of(sample: str, text: str) -> int:
    lines = sample_path(sample).read_text().splitlines()
    return next(number for number, line in enumerate(lines, start=1) if text in line)


def test_profile_matmul_puts_the_time_in_the_k_loop_with_its_stall_reasons():
    """Measured on an H100 (ncu 2025.3.1) at 1024, 2048 and 4096: the hottest line is in the K loop
    (the `for` line or the `a` load, waiting on the asynchronous copies), the tl.dot line second."""
    proc = tritonscope("profile", "sample:matmul", "--json", timeout=60)
    body = json.loads(proc.stdout)
    dot, loop = _line_of("matmul", "tl.dot("), _line_of("matmul", "for k in range")
    assert body["kind"] == "profile" and body["mapped_by"] == "line map" and body["unattributed_samples"] == 0
    lines = {line["line"]: line for line in body["lines"]}
    ranked = sorted(lines, key=lambda n: -lines[n]["samples"])
    print("lines by samples:", [(n, lines[n]["samples"], list(lines[n]["stalls"])[:3]) for n in ranked[:5]])
    assert loop <= body["hottest_line"] <= dot and dot in ranked[:3]
    assert lines[dot]["static"]["instructions"]["matrix"] > 0 and lines[dot]["instructions_executed"] > 0
    assert lines[body["hottest_line"]]["stalls"] and body["instructions_executed"] > 1e6


def test_profile_view_marks_the_hottest_line():
    proc = tritonscope("profile", "sample:matmul", timeout=60)
    hot = re.search(r"hottest: line (\d+), \d+% of the samples \((\w+) \d+%", proc.stdout)
    assert hot, proc.stdout[-2000:]
    assert re.search(rf"^\s*▶{hot.group(1)}\s", proc.stdout, re.MULTILINE)
    assert "warp-stall samples" in proc.stdout and "tritonscope's line map of the binary that ran" in proc.stdout


def test_bench_plot_draws_the_kernel_and_torch(tmp_path):
    out = tmp_path / "x.svg"
    tritonscope("bench", "sample:vector_add", "--size", "2**12..2**20", "--plot", out, timeout=60)
    svg = out.read_text()
    groups = dict(re.findall(r'<g id="(series-\d+)">(.*?)</g>', svg, re.DOTALL))
    assert {gid: body.count("<use ") for gid, body in groups.items()} == {"series-0": 9, "series-1": 9}
    assert "triton" in svg and "torch" in svg and "GB/s" in svg


def test_profile_replays_a_captured_launch(tmp_path):
    """profile DIR/:KERNEL: the launch `trace` recorded, replayed by its reproducer under ncu, mapped
    through the binary the reproducer compiled (the sample's own lines)."""
    from conftest import KERNELS

    tritonscope("trace", "-o", tmp_path / "run", "--", sys.executable, KERNELS / "launch_vector_add.py", timeout=120)
    body = json.loads(tritonscope("profile", f"{tmp_path / 'run'}/:add_kernel", "--json", timeout=120).stdout)
    assert body["kind"] == "profile" and body["mapped_by"] == "line map"
    lines = {line["line"]: line for line in body["lines"]}
    load = _line_of("vector_add", "x = tl.load(")
    assert lines[load]["instructions_executed"] > 0
    assert body["instructions_executed"] > 98432 // 32  # every element's warp ran: the whole grid was measured
