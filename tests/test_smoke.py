"""The smoke test CI runs on every other supported Triton release (tests/releases.py): each command
on three samples, for sm90 and gfx942, through the command line, checking content, not only exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version

import pytest

pytestmark = pytest.mark.smoke

SAMPLES = {  # sample: (its kernel, a Python line that must map to loads in the machine code, grid flags)
    "vector_add": ("add_kernel", 21, ["-a", "n_elements=4096"]),
    "softmax": ("softmax_kernel", None, None),
    "matmul": ("matmul_kernel", None, ["-a", "M=256", "-a", "N=256", "-a", "K=256"]),
}
STAGES = {"sm90": {"ttir", "ttgir", "llir", "ptx", "sass"}, "gfx942": {"ttir", "ttgir", "llir", "amdgcn"}}


def _run(*args: str, expect: int = 0) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "tritonscope", *args], capture_output=True, text=True)
    assert result.returncode == expect, f"{args}: exit {result.returncode}\n{result.stderr[-2000:]}"
    assert "Traceback" not in result.stderr and "Warning" not in result.stderr, result.stderr[-2000:]
    return result


@pytest.mark.parametrize("target", sorted(STAGES))
@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_dump_diff_passes_report(sample, target, tmp_path):
    kernel, _, _ = SAMPLES[sample]
    doc = json.loads(_run("dump", f"sample:{sample}", "-t", target, "--json").stdout)
    assert doc["kernel"]["name"] == kernel and doc["resources"]["registers"] > 0
    assert STAGES[target] <= set(doc["stages"]) and doc["line_map"]
    diff = json.loads(_run("diff", f"sample:{sample}", "-t", target, "--vary", "num_warps=4,8", "--json").stdout)
    assert [v["ok"] for v in diff["variants"]] == [True, True] and diff["diffs"]
    passes = json.loads(_run("passes", f"sample:{sample}", "-t", target, "--json").stdout)
    names = {p["name"] for p in passes["passes"]}
    assert "tritongpu-coalesce" in names and any(p["changed"] for p in passes["passes"])
    _run("report", f"sample:{sample}", "-t", target, "-o", str(tmp_path / "r.html"))
    assert kernel in (tmp_path / "r.html").read_text()


def test_the_line_map_points_loads_at_their_python_line():
    doc = json.loads(_run("dump", "sample:vector_add", "-t", "sm90", "--json").stdout)
    sass = doc["stages"]["sass"].splitlines()
    line = next(e for e in doc["line_map"] if e["line"] == 21 and e["file"].endswith("vector_add.py"))
    assert any("LDG" in sass[n - 1] for n in line["stages"]["sass"])


@pytest.mark.parametrize("sample", ["vector_add", "matmul"])
def test_grid(sample):
    _, _, flags = SAMPLES[sample]
    doc = json.loads(_run("grid", f"sample:{sample}", "-t", "sm90", *flags, "--json").stdout)
    assert doc["programs"] and all(p["stores"] for p in doc["programs"])


def test_layout():
    text = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"
    result = subprocess.run(
        [sys.executable, "-m", "tritonscope", "layout", text, "--shape", "32x16", "--json"],
        capture_output=True,
        text=True,
    )
    if version("triton") < "3.6":  # 3.5 has no linear layouts: one clear message instead
        assert result.returncode == 2 and "needs the linear layouts of Triton 3.6 or later" in result.stderr
        return
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["owners"]["0,0"] == [[0, 0, 0]] and not result.stderr.strip()


@pytest.mark.parametrize("target", sorted(STAGES))
def test_passes_time(target):
    """passes --time on every release: MLIR's timings joined to the pass table, the LLVM steps and
    the assembler timed (the 10% sum is tests/test_compile_time.py's, on releases with a stage hook)."""
    doc = json.loads(_run("passes", "sample:vector_add", "-t", target, "--time", "--json").stdout)
    timing, names = doc["timing"], {p["name"] for p in doc["passes"]}
    joined = [s for s in timing["steps"] if s["kind"] == "mlir" and s["index"]]
    assert len(joined) > len(doc["passes"]) // 2 and {s["name"].split("#")[0] for s in joined} <= names
    assert {s["kind"] for s in timing["steps"]} >= {"front end", "mlir", "llvm", "tool"}
    assert 0 < timing["measured_seconds"] <= 1.2 * timing["total_seconds"]
