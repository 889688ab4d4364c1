"""A whole launch's time (analysis/launch_time.py) on kernels where its bound is sure, with real compiles:
a copy is bound by the DRAM at the target's bandwidth; one block is one wave; 133 blocks at one block per
SM on 132 SMs are two waves, the second a tail of one; a grouped tile order reads less from the DRAM."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import compiled

from tritonscope.analysis import launch_time
from tritonscope.core.targets import TARGETS

COPY = str(Path(__file__).parent / "kernels" / "launch" / "copy.py")
N = 1 << 26  # 256 MiB of fp32 each way: far more than any L2


def test_a_copy_is_bound_by_the_dram_at_the_targets_bandwidth():
    for target in ("h200", "sm90", "sm80"):
        speeds = TARGETS[target].speeds
        estimate = launch_time.estimate(compiled(COPY, target), (N // 1024,), "--grid")
        assert estimate.bound == "DRAM", (target, estimate.limits)
        assert abs(estimate.dram_bytes - 2 * 4 * N) < 1e-6 * N  # read once, written once
        rate = speeds.dram_bytes_per_s * launch_time.DRAM_ATTAINED
        body = estimate.kernel_us - estimate.launch_us
        assert abs(body - 2 * 4 * N / rate * 1e6) < 1e-6 * body, target
        assert estimate.limits[0].name == "DRAM" and "TB/s" in estimate.limits[0].said
    h200 = launch_time.estimate(compiled(COPY, "h200"), (N // 1024,), "--grid")
    h100 = launch_time.estimate(compiled(COPY, "sm90"), (N // 1024,), "--grid")
    ratio = (h100.kernel_us - h100.launch_us) / (h200.kernel_us - h200.launch_us)
    assert abs(ratio - 4.8 / 3.35) < 1e-3  # the H200's HBM3e


def test_one_block_is_one_wave_and_bound_by_it():
    c = compiled(COPY, "h200", args=("n=1024",))
    estimate = launch_time.estimate(c, (1,), "--grid")
    assert (estimate.waves, estimate.tail, estimate.programs) == (1, 1, 1)
    assert estimate.slots == 132 * c.resources.occupancy.blocks_per_sm
    assert estimate.bound == "waves" and estimate.limits[0].name == "waves"
    assert estimate.kernel_us == estimate.launch_us + estimate.block_us


def test_133_blocks_at_one_block_per_sm_are_two_waves_the_second_a_tail():
    """The autotuned matmul's first config (128x256x64 tiles, 3 stages: 144 KiB of shared memory) holds
    one block per SM: 133 blocks on an H200's 132 SMs run as a full wave and a tail of one block, each
    with one block per SM, so the launch takes two blocks' time."""
    c = compiled("sample:matmul_autotune", "h200", config=0)
    assert c.resources.occupancy.blocks_per_sm == 1
    estimate = launch_time.estimate(c, (133,), "--grid")
    assert (estimate.slots, estimate.waves, estimate.tail) == (132, 2, 1)
    assert estimate.block_us == estimate.tail_us
    waves = next(limit for limit in estimate.limits if limit.name == "waves")
    assert waves.us == estimate.block_us + estimate.tail_us
    assert "2 waves at 1 block per SM" in waves.said and "the last 1 of 132 blocks" in waves.said
    one = launch_time.estimate(c, (132,), "--grid")
    assert one.waves == 1 and one.kernel_us < estimate.kernel_us


def _grouped(group: int):
    size = 8192
    args = (f"M={size}", f"N={size}", f"K={size}", f"stride_am={size}", f"stride_bk={size}", f"stride_cm={size}")
    c = compiled("sample:matmul_grouped", "h200", constexprs=(f"GROUP_SIZE_M={group}",), args=args)
    return launch_time.estimate(c, ((size // 128) ** 2,), "--grid")


def test_a_grouped_tile_order_reads_less_from_the_dram():
    """An 8192^3 fp16 matmul in 128x128 tiles: a row-major wave reads 2 rows of A tiles and all 64
    columns of B (more than the L2 keeps for the next wave), a grouped one 8 rows and 17 columns.
    Both read every tile at least once (A, B and C: 3 x 128 MiB); grouped, far less again."""
    row_major, grouped = _grouped(1), _grouped(8)
    least = 3 * 8192 * 8192 * 2
    assert least <= grouped.dram_bytes < row_major.dram_bytes
    assert row_major.dram_bytes > 1.5 * grouped.dram_bytes
    assert grouped.flops == row_major.flops == 2 * 8192**3
    assert grouped.l2_bytes == row_major.l2_bytes  # the same tiles asked of the L2, in another order


def test_no_estimate_without_the_targets_figures_or_its_sass():
    assert TARGETS["gfx942"].speeds is None
    assert launch_time.estimate(compiled(COPY, "gfx942"), (4,), "--grid") is None


def test_explain_gives_the_whole_launch_under_time_for_the_files_grid_or_the_one_given():
    from cli_process import tritonscope

    document = json.loads(
        tritonscope("explain", "sample:matmul_autotune", "-t", "h200", "--no-what-if", "--json").stdout
    )
    time, launch = document["time"], document["time"]["launch"]
    assert launch["grid_from"] == "the file's grid(meta)" and launch["grid"] == [512, 1, 1]  # 4096^2 / (128 x 256)
    assert time["kernel_us"] == launch["kernel_us"] > launch["launch_us"] and time["kernel_bound"] == launch["bound"]
    assert {limit["name"] for limit in launch["limits"]} == {"waves", "DRAM", "tensor cores"}  # no L2 figure for it
    assert launch["flops"] == 2 * 4096**3 and launch["dram_bytes"] >= 3 * 4096 * 4096 * 2
    given = tritonscope(
        "explain",
        "sample:matmul_autotune",
        "-t",
        "h200",
        "--no-what-if",
        "--json",
        "--grid",
        "cdiv(M, BLOCK_SIZE_M), 2",
    )
    launch = json.loads(given.stdout)["time"]["launch"]
    assert launch["grid"] == [32, 2, 1] and launch["grid_from"] == "--grid"
    text = tritonscope("explain", "sample:matmul_autotune", "-t", "h200", "--no-what-if", env={"COLUMNS": "80"}).stdout
    assert "the whole launch (grid 512, from the file's grid(meta)) on the H200 SXM:" in " ".join(text.split())
    assert max(len(line) for line in text.splitlines()) <= 80
    unknown = tritonscope("explain", "sample:matmul_autotune", "--grid", "cdiv(Q, 4)", expect=2).stderr
    assert "--grid cdiv(Q, 4) names Q, whose value is not known: give -a Q=VALUE" in unknown
    assert (
        "not something a grid is computed with"
        in tritonscope("explain", COPY, "--grid", "n.bit_length()", expect=2).stderr
    )


def test_without_a_grid_explain_says_how_to_give_one():
    from tritonscope.app.explain import explain_compilation

    result = explain_compilation(compiled(COPY, "h200"), None, live=False)
    assert result.launch is None and result.time is not None
    assert result.launch_note.startswith("the launch grid is not known: give --grid")
