"""`tritonscope diff`: variants compiled in isolated workers, resources compared, IR diffed."""

from __future__ import annotations

import json
import re

import pytest
from conftest import KERNELS, compiled

from tritonscope.analysis import diffing
from tritonscope.core.stages import Stage


def _diff_json(cli, *args, expect=0):
    return json.loads(cli("diff", *args, "--json", expect=expect).stdout)


def test_block_size_changes_shape_and_layout_and_nothing_else():
    a = compiled("sample:vector_add", "sm90", constexprs=("BLOCK_SIZE=256",))
    b = compiled("sample:vector_add", "sm90", constexprs=("BLOCK_SIZE=1024",))
    (d,) = diffing.diff([a, b], Stage.TTGIR, "first")
    changed = [line for line in d.unified("a", "b", context=0) if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert "-#blocked = #ttg.blocked<{sizePerThread = [2]" in changed[0]
    assert "+#blocked = #ttg.blocked<{sizePerThread = [4]" in changed[1]
    assert any("tensor<256xi32, #blocked>" in line for line in changed if line.startswith("-"))
    assert any("tensor<1024xi32, #blocked>" in line for line in changed if line.startswith("+"))
    # Only real changes: every changed line names a size or the layout, and no location survives.
    assert all(re.search(r"256|1024|sizePerThread", line) for line in changed), changed
    assert not any("loc(" in line or "#loc" in line for line in d.old_lines + d.new_lines)


def test_canonical_names_make_equal_structures_equal():
    c = compiled("sample:matmul", "sm90")
    same = diffing.diff([c, compiled("sample:matmul", "sm90", args=("M=8192",))], Stage.TTGIR, "first")[0]
    assert not same.changed  # M only changes a value the kernel reads at run time


def test_divisible_n_gets_128_bit_loads_and_odd_n_does_not(cli):
    doc = _diff_json(cli, "sample:vector_add", "-t", "sm90", "--vary", "n_elements=4096,4099")
    loads = [v["resources"]["instructions"]["global_loads"] for v in doc["variants"]]
    assert loads[0] == {"128": 4} and set(loads[1]) == {"32"}
    table = cli("diff", "sample:vector_add", "-t", "sm90", "--vary", "n_elements=4096,4099").stdout
    assert "4x128b" in table and "16x32b" in table and "global loads *" in table  # the differing column is marked


def test_more_pipeline_stages_need_more_shared_memory(cli):
    doc = _diff_json(cli, "sample:matmul", "-t", "sm90", "--vary", "num_stages=1,3", "--stage", "ttgir")
    one, three = (v["resources"]["shared_bytes"] for v in doc["variants"])
    assert three > one > 0
    assert doc["diffs"][0]["changed"] and any(
        "async_copy_global_to_local" in line for line in doc["diffs"][0]["unified"]
    )


def test_a_crashing_variant_fails_alone(cli):
    doc = _diff_json(cli, KERNELS / "crashy.py", "-t", "sm90", "--vary", "n=16,13,11,32", expect=1)
    status = {v["label"]["n"]: (v["ok"], v["error"]) for v in doc["variants"]}
    assert status["16"] == (True, None) and status["32"] == (True, None)
    assert status["13"] == (False, "the compiler process crashed (SIGABRT)")
    assert status["11"] == (False, "the compiler process crashed (SIGSEGV)")
    # The failed variants drop out of the diffs: the survivors are diffed against the first.
    assert [(d["old"], d["new"]) for d in doc["diffs"] if d["stage"] == "ttgir"] == [(0, 3)]


def test_a_hanging_variant_times_out(cli):
    doc = _diff_json(cli, KERNELS / "crashy.py", "-t", "sm90", "--vary", "n=16,7", "--timeout", "5", expect=1)
    error = doc["variants"][1]["error"]
    assert error.startswith("timed out after 5 s (stuck at ") and "crashy.py:17" in error and doc["variants"][0]["ok"]
    assert (
        "FAILED: timed out after 5 s (stuck at"
        in cli("diff", KERNELS / "crashy.py", "-t", "sm90", "--vary", "n=16,7", "--timeout", "5", expect=1).stdout
    )


def _comparable(doc):
    for v in doc["variants"]:
        v.pop("compile_seconds", None)
        v.pop("stage_seconds", None)  # timings: they differ from run to run
        v.pop("cache_hit", None)  # the first run fills Triton's cache for the second
    return doc


def test_results_do_not_depend_on_the_number_of_workers(cli):
    args = [
        "sample:matmul",
        "-t",
        "sm80",
        "--vary",
        "num_warps=4,8",
        "--vary",
        "num_stages=2,3",
        "--vary",
        "BLOCK_SIZE_K=32,64",
    ]
    one = _comparable(_diff_json(cli, *args, "-j", "1"))
    two = _comparable(_diff_json(cli, *args, "-j", "2"))
    assert len(one["variants"]) == 8 and one == two


def test_every_autotune_config_and_against_previous(cli):
    doc = _diff_json(
        cli, "sample:matmul_autotune", "-t", "sm90", "--configs", "--stage", "ttgir", "--against", "previous"
    )
    assert [v["label"] for v in doc["variants"]] == [{"config": str(i)} for i in range(8)]
    assert [(d["old"], d["new"]) for d in doc["diffs"]] == [(i, i + 1) for i in range(7)]


def test_targets_diff_the_stages_each_has(cli):
    doc = _diff_json(cli, "sample:softmax", "--vary", "target=sm80,sm90,gfx942", "--stage", "ttgir,sass")
    pairs = {(d["stage"], d["old"], d["new"]) for d in doc["diffs"]}
    assert pairs == {("ttgir", 0, 1), ("ttgir", 0, 2), ("sass", 0, 1)}


def test_the_header_names_every_target_and_folds_at_the_width():
    """One target: `compiled for sm90`; several: each named, the target row saying which variant is
    which; folded at spaces at 80 columns (issue 55: it was cut, and said only the first target)."""
    from cli_process import tritonscope

    one = tritonscope("diff", "sample:vector_add", "-t", "sm90", "--vary", "BLOCK_SIZE=512,1024", env={"COLUMNS": "80"})
    assert " ".join(one.stdout.split("\n[0]")[0].split()).endswith(": 2 variants, compiled for sm90")
    several = tritonscope("diff", "sample:vector_add", "--vary", "target=sm80,sm90", env={"COLUMNS": "80"}).stdout
    head = several.split("\n[0]")[0]
    assert max(map(len, head.splitlines())) <= 80 and "first on" not in several
    assert " ".join(head.split()).endswith(": 2 variants, compiled for sm80, sm90 (the target row says which)")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--vary", "BLOCK_SIZE"], "--vary expects NAME=V1,V2"),
        (["--vary", "BLOCK_SIZE=128,,256"], "--vary BLOCK_SIZE=128,,256: a value is empty"),
        (["--vary", "NOPE=1,2"], "--vary NOPE: not a parameter of add_kernel"),
        (["--vary", "BLOCK_SIZE=256"], "at least two variants"),
        (["--vary", "num_warps=4,x"], "'x' is not an integer"),
        (["--vary", "BLOCK_SIZE=256,512", "--against", "last"], "--against must be first or previous"),
        (["--configs"], "has no @triton.autotune configs"),
        (["--vary", "BLOCK_SIZE=256,512", "--stage", "ttgir,bogus"], "unknown stage 'bogus'. Stages: source"),
    ],
)
def test_bad_diff_requests(cli, args, message):
    assert message in cli("diff", "sample:vector_add", "-t", "sm90", *args, expect=2).stderr


def test_a_variant_that_does_not_compile_is_reported(cli):
    doc = _diff_json(cli, "sample:vector_add", "-t", "sm90", "--vary", "BLOCK_SIZE=256,100", expect=1)
    assert "arange's range must be a power of 2" in doc["variants"][1]["error"]


def test_the_legend_shows_a_config_as_compiled(cli):
    """A value varied (or given with -c) beside a kernel's autotune config replaces the config's own: the
    legend listed the config's values (BK=128 where BK=64 compiled), as fla's chunk_o showed."""
    out = cli("diff", "sample:matmul_autotune", "-t", "sm90", "--vary", "BLOCK_SIZE_K=32,64", "--stage", "ttgir").stdout
    legend = " ".join(out.split())
    assert (
        "[0] BLOCK_SIZE_K=32: config 0: BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=32 (the config's 64)" in legend
    )
    assert "[1] BLOCK_SIZE_K=64: config 0: BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP" in legend
    configs = " ".join(
        cli("diff", "sample:matmul_autotune", "-t", "sm90", "--configs", "--stage", "ttgir").stdout.split()
    )
    assert "[1] config=1: BLOCK_SIZE_M=64, BLOCK_SIZE_N=256, BLOCK_SIZE_K=32" in configs


def test_the_figures_show_the_stack_where_spills_go(cli):
    """NVIDIA's spills go to the stack frame: the figures showed `local memory 0 B` beside 512 spills."""
    out = cli("diff", "sample:matmul", "-t", "sm80", "--maxnreg", "64", "--vary", "num_warps=4,8", "--stage", "ttgir")
    stack = next(line for line in out.stdout.splitlines() if line.startswith("stack"))
    assert stack.startswith("stack *") and "2,048 B (2 KiB)" in stack, out.stdout
