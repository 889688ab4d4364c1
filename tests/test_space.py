"""diff --space (issue 28): an autotune space explored; failures by cause, Pareto set, --top N."""

from __future__ import annotations

import json

from tritonscope.app.space import LOWER, cause_of

SPACE = ("--space", "BLOCK_SIZE=64,128,256,1024", "--space", "num_warps=1,4", "--target", "sm90")


def _beats(a: dict, b: dict) -> bool:
    """a is no worse than b on every figure and better on one."""
    pairs = [(a[n], b[n]) for n in LOWER] + [(-a["occupancy"], -b["occupancy"])]
    return all(x <= y for x, y in pairs) and any(x < y for x, y in pairs)


def test_a_space_gives_its_pareto_set_and_top_n(cli):
    result = cli("diff", "sample:vector_add", *SPACE, "--top", "3", "--sort", "registers", "--json", "-j", "2")
    document = json.loads(result.stdout)
    assert document["kind"] == "space" and document["static"] is True
    assert document["count"] == 8 and document["failures"] == {}
    points = [p["figures"] for p in document["points"]]
    front = [p["figures"] for p in document["pareto"]]
    assert front and all(not any(_beats(other, mine) for other in points) for mine in front)
    outside = [p["figures"] for p in document["points"] if p["index"] not in {q["index"] for q in document["pareto"]}]
    assert all(any(_beats(mine, other) for mine in points) for other in outside)
    registers = [p["figures"]["registers"] for p in document["top"]]
    assert len(registers) == 3 and registers == sorted(registers)
    assert registers[0] == min(p["registers"] for p in points)


def test_the_space_view_fits_80_columns_and_says_the_figures_are_static(cli):
    result = cli("diff", "sample:vector_add", *SPACE, "--top", "2")
    lines = result.stdout.splitlines()
    assert "8 configs, 8 compiled within the limits" in lines[0]
    assert any("static figures" in line for line in lines)
    assert "Top 2 by occupancy" in result.stdout
    assert max(len(line) for line in lines) <= 80  # the fixture's COLUMNS is 240: the table is narrow by itself


def test_failures_are_counted_by_cause(cli, tmp_path):
    kernel = tmp_path / "picky.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n\n"
        "def _refuse(args):\n"
        "    if args['BLOCK_SIZE'] == 64:\n"
        "        raise ValueError('this heuristic refuses BLOCK_SIZE 64')\n"
        "    return 1\n\n\n"
        "@triton.heuristics({'UNUSED': _refuse})\n@triton.jit\n"
        "def picky(x_ptr, BLOCK_SIZE: tl.constexpr, UNUSED: tl.constexpr):\n"
        "    tl.store(x_ptr + tl.arange(0, BLOCK_SIZE), 1.0)\n"
    )
    result = cli("diff", kernel, *SPACE, "--json", "-j", "2")
    document = json.loads(result.stdout)
    assert document["failures"] == {"other": 2}
    failed = [p for p in document["points"] if p["cause"]]
    assert [p["label"]["BLOCK_SIZE"] for p in failed] == ["64", "64"]
    assert "refuses BLOCK_SIZE 64" in failed[0]["error"]


def test_causes_read_off_the_compilers_messages():
    assert cause_of("out of resource: shared memory, Required: 262144, Hardware limit: 232448") == "shared memory"
    assert cause_of("ptxas error: Entry function uses too many registers") == "registers"
    assert cause_of("timed out after 300 s") == "timeout"
    assert cause_of("the compiler process crashed (SIGSEGV)") == "other"


def test_space_and_vary_are_not_given_together(cli):
    result = cli("diff", "sample:vector_add", *SPACE, "--vary", "num_stages=2,3", expect=2)
    assert "--space and --vary" in result.stderr


def test_a_cluster_without_ray_says_to_install_the_extra(cli, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    result = cli("diff", "sample:vector_add", "--vary", "BLOCK_SIZE=64,128", "--cluster", "auto", expect=2)
    assert "tritonscope[cluster]" in result.stderr


def test_bench_space_launches_the_pareto_set_alone():
    """Up to the launch (no GPU here): the configs bench --space would run are the space's Pareto set."""
    from tritonscope.app.bench import combinations, pareto_configs
    from tritonscope.app.space import explore
    from tritonscope.app.walk.sweep import Axis
    from tritonscope.core.model import VariantRequest
    from tritonscope.core.samples import samples_dir

    file = str(samples_dir() / "vector_add.py")
    axes = [Axis("BLOCK_SIZE", (64, 128, 256, 1024)), Axis("num_warps", (1, 4))]
    chosen = pareto_configs(file, axes, timeout=300)
    front = explore(VariantRequest(file=file).resolved(), axes, 2, 300).pareto  # as a front end makes it
    assert chosen == [combinations(axes)[i] for i in front]
    assert 0 < len(chosen) < 8 and all(set(c) == {"BLOCK_SIZE", "num_warps"} for c in chosen)


def test_bench_space_needs_a_gpu(cli):
    result = cli("bench", "sample:vector_add", "--space", "BLOCK_SIZE=256,1024", expect=2)
    assert "GPU" in result.stderr or "torch" in result.stderr


def test_a_cluster_address_that_does_not_answer_is_said_at_once(cli):
    import socket

    import pytest

    pytest.importorskip("ray")
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    result = cli("diff", "sample:vector_add", "--vary", "BLOCK_SIZE=64,128", "--cluster", f"127.0.0.1:{port}", expect=2)
    assert f"--cluster 127.0.0.1:{port}: nothing answers there" in result.stderr
    assert "ray start --head" in result.stderr
