"""A whole launch's time (analysis/launch_time.py) on kernels where its bound is sure, with real compiles:
a copy is bound by the DRAM at the target's bandwidth; one block is one wave; 133 blocks at one block per
SM on 132 SMs are two waves, the second a tail of one; a grouped tile order reads less from the DRAM."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import KERNELS, compiled

from tritonscope.analysis import launch_time
from tritonscope.core.stages import Stage
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
        dram = estimate.limits[0]
        assert dram.name == "DRAM" and abs(dram.us - 2 * 4 * N / rate * 1e6) < 1e-6 * dram.us, target
        # the other limits it overlaps with lengthen it by a few percent at most
        assert dram.us <= estimate.kernel_us - estimate.launch_us < 1.05 * dram.us, target
    h200 = launch_time.estimate(compiled(COPY, "h200"), (N // 1024,), "--grid")
    h100 = launch_time.estimate(compiled(COPY, "sm90"), (N // 1024,), "--grid")
    assert abs(h100.limits[0].us / h200.limits[0].us - 4.8 / 3.35) < 1e-3  # the H200's HBM3e


def test_one_block_is_one_wave_and_bound_by_it():
    c = compiled(COPY, "h200", args=("n=1024",))
    estimate = launch_time.estimate(c, (1,), "--grid")
    assert (estimate.waves, estimate.tail, estimate.programs) == (1, 1, 1)
    assert estimate.slots == 132 * c.resources.occupancy.blocks_per_sm
    waves = next(limit for limit in estimate.limits if limit.name == "waves")
    assert waves.us == estimate.block_us and "1 wave of 1 block" in waves.said
    # its one block's reads wait one round trip under load: longer than the per-warp walk's
    assert estimate.bound == "loads in flight" and estimate.limits[0].us > waves.us
    # most of its time is the launch's fixed cost, which the headline says before what bounds the rest
    assert estimate.said.startswith(f"{estimate.kernel_us:,.1f} us, {estimate.launch_us:g} of them a launch's fixed")
    assert "; the rest bound by its loads in flight: " in estimate.said
    big = launch_time.estimate(compiled(COPY, "h200"), (N // 1024,), "--grid")
    assert big.said.startswith(f"{big.kernel_us:,.1f} us, bound by the DRAM: ")


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


def test_the_flops_of_a_grid_past_the_programs_evaluated_are_the_whole_launchs():
    """65,536 tiles of 128x128: the first 16,384 programs are evaluated and the rest taken like them; their
    bytes were scaled to the launch and their FLOPs were not (a quarter of the matmul's 2 M N K)."""
    m, n, k = 32768, 32768, 1024
    args = (f"M={m}", f"N={n}", f"K={k}", f"stride_am={k}", f"stride_bk={n}", f"stride_cm={n}")
    c = compiled("sample:matmul_grouped", "h200", constexprs=("GROUP_SIZE_M=8",), args=args)
    estimate = launch_time.estimate(c, ((m // 128) * (n // 128),), "--grid")
    assert estimate.flops == 2 * m * n * k
    tensor = next(limit for limit in estimate.limits if limit.name == "tensor cores")
    assert f"{2 * m * n * k / 1e9:,.1f} GFLOP" in tensor.said


def test_explain_asks_the_files_grid_hook_once(tmp_path):
    """The grid was found twice (once for the per-line estimate, once for the launch's): a hook with
    side effects, or a slow one, ran twice."""
    from cli_process import tritonscope

    calls = tmp_path / "calls"
    kernel = KERNELS / "launch" / "counted_grid.py"
    document = json.loads(
        tritonscope("explain", str(kernel), "-t", "h100", "--json", env={"GRID_CALLS": str(calls)}).stdout
    )
    assert document["time"]["launch"]["grid"] == [65536, 1, 1]
    assert calls.read_text().splitlines() == [str(1 << 26)]


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
    names = {"waves", "blocks", "DRAM", "L2", "L1", "tensor cores", "loads in flight"}  # its cp.async copies
    assert {limit["name"] for limit in launch["limits"]} == names
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
    assert "--grid cdiv(Q, 4) names what is not an argument or constexpr of the kernel (Q is none of them)" in unknown
    # a name close to the kernel's: `-a BLOCK_M=...` would be refused, so the right name is said
    misnamed = tritonscope("explain", "sample:matmul_autotune", "--grid", "cdiv(M, BLOCK_M)", expect=2).stderr
    assert "(BLOCK_M: did you mean BLOCK_SIZE_M?)" in misnamed and "give -a" not in misnamed
    assert (
        "not something a grid is computed with"
        in tritonscope("explain", COPY, "--grid", "n.bit_length()", expect=2).stderr
    )


def test_a_persistent_loop_over_num_programs_runs_as_the_grid_says():
    """`for tile in range(pid, tiles, tl.num_programs(0))`: with the grid known, program 0 runs
    cdiv(4096, 132) = 32 tiles; it was "assumed to run 16 times (a trip count known only at run time)"
    in explain's lines and the launch both, and fit --rank ranked on it (h24a)."""
    from cli_process import tritonscope

    kernel = str(KERNELS / "persistent_epilogue.py")
    given = ("-c", "BM=64", "-c", "BN=64", "-c", "BK=32", "-a", "tiles=4096", "-a", "K=512")
    pointers = ("-a", "a_ptr=*fp16", "-a", "b_ptr=*fp16", "-a", "c_ptr=*fp16")
    explained = tritonscope(
        "explain", kernel, "-t", "h200", *given, *pointers, "--grid", "132", "--no-what-if", "--json"
    )
    time = json.loads(explained.stdout)["time"]
    trips = "loop trips from the arguments (line 13: 32, line 15: 16)"
    assert time["assumptions"] == [trips] and trips in time["launch"]["assumptions"], time["launch"]["assumptions"]
    fitted = tritonscope("fit", kernel, "--rank", "-t", "h200", *given, *pointers, "--grid", "132", "--json").stdout
    (config,) = json.loads(fitted)["kernels"][0]["configs"]
    assert trips in config["cells"]["h200"]["estimate"]["assumptions"], config["cells"]["h200"]["estimate"]
    # with no grid there is no num_programs to count by: said so, as before
    alone = tritonscope("explain", kernel, "-t", "h200", *given, *pointers, "--no-what-if", "--json").stdout
    assert (
        "1 loop assumed to run 16 times (a trip count known only at run time)"
        in json.loads(alone)["time"]["assumptions"]
    )


def test_without_a_grid_explain_says_how_to_give_one():
    from tritonscope.app.explain import explain_compilation

    result = explain_compilation(compiled(COPY, "h200"), None, live=False)
    assert result.launch is None and result.time is not None
    assert result.launch_note.startswith("the launch grid is not known: give --grid")


def test_a_grid_function_given_too_few_values_is_refused_where_the_grid_is_read():
    """`--grid 'max(EM)'` failed in every compile (fit: "does not compile: TypeError", exit 0; explain:
    an internal error, exit 3): refused as the grid is read, as `cdiv(EM, 0)` is when it is evaluated (h20a)."""
    from tritonscope.core import launch_grid
    from tritonscope.core.errors import UsageError

    for text, said in (
        ("max(EM)", "max() takes two values or more, not 1"),
        ("cdiv(EM)", "cdiv() takes two values, not 1"),
    ):
        with pytest.raises(UsageError) as refused:
            launch_grid.parse(text)
        assert str(refused.value.message) == f"--grid {text}: {said}"
    assert launch_grid.parse("max(EM, 8), min(N, 4, 2)").evaluate({"EM": 3, "N": 9}) == (8, 2, 1)
    # a bool constexpr counts as Python counts it (it was "not known: give -a", then "give it with -c")
    assert launch_grid.parse("SPLIT + 1").evaluate({"SPLIT": True}) == (2, 1, 1)


def test_a_grid_past_what_cuda_launches_is_said_not_estimated():
    from tritonscope.app.explain import explain_compilation
    from tritonscope.core import launch_grid

    for text in ("1,70000", "3000000000"):
        result = explain_compilation(compiled(COPY, "h200"), None, live=False, grid=launch_grid.parse(text))
        assert result.launch is None and "a CUDA launch takes a grid of at most" in result.launch_note
        assert "Triton's launch would fail" in result.launch_note
    fits = explain_compilation(compiled(COPY, "h200"), None, live=False, grid=launch_grid.parse("1,65535"))
    assert fits.launch is not None and fits.launch.grid == (1, 65535, 1)


LAUNCH_SET = Path(__file__).parent / "kernels" / "launch_set"


def test_the_copies_of_code_a_warp_does_not_run_are_not_counted():
    """The row sum's loop over 8 column blocks is unrolled four times in its SASS, a remainder after it:
    the walk counts 35 loads where a warp runs 8 (and one store, run once); the block's time is scaled
    to what runs: 9 of 36."""
    from tritonscope.analysis import line_time, program_traffic, walk_copies

    args = ("n_rows=32768", "n_cols=8192", "stride_row=8192")
    c = compiled(str(LAUNCH_SET / "reduce_rows.py"), "h200", args=args, config=0)  # ROWS=1, BLOCK_N=1024
    per_warp = line_time.estimate(c)
    traffic = program_traffic.evaluate(c.stages[Stage.TTIR], (32768, 1, 1), {"n_rows": 32768, "n_cols": 8192})
    share = walk_copies.walked_share(c, per_warp, traffic)
    walked = sum(s.repeats for s in per_warp.instructions if s.opcode.startswith(("LDG", "STG")))
    assert walked == 36 and share == 9 / 36


def test_many_small_blocks_are_bound_by_starting_them():
    c = compiled(COPY, "h200", constexprs=("BLOCK=128",), num_warps=1)
    estimate = launch_time.estimate(c, (N // 128,), "--grid")
    assert estimate.bound == "blocks" and estimate.limits[0].name == "blocks"
    assert estimate.limits[0].us == N // 128 * launch_time.BLOCK_CYCLES / 132 / 1980


def test_narrow_accesses_touch_more_sectors_of_the_l1():
    """n not a multiple of 16: Triton cannot prove 16-byte accesses, and moves each thread's 4 contiguous
    fp32 elements 4 bytes at a time: 4 instructions where one would do, each touching as many sectors."""
    from tritonscope.analysis import line_time, sectors

    c = compiled(COPY, "h200", args=("n=1000003",))
    inflation = sectors.inflation_by_line(c, line_time.estimate(c))
    assert set(inflation.values()) == {4.0}
    wide = compiled(COPY, "h200", args=("n=1048576",))
    assert sectors.inflation_by_line(wide, line_time.estimate(wide)) == {}


def test_the_loads_a_warp_keeps_in_flight_bound_the_dram_it_draws():
    """BLOCK 1024 over 4 warps: each thread's 8 fp32 elements come in two 16-byte loads, both issued before
    either is waited for: 1 KiB a warp in flight. By Little's law one block's reads take a round trip; a
    full GPU of blocks keeps so much in flight that the DRAM's bandwidth bounds the copy, not its loads."""
    from tritonscope.analysis import in_flight, scoreboards

    c = compiled(COPY, "h200")
    assert in_flight.warp_bytes(scoreboards.schedule(c)) == 1024
    one = launch_time.estimate(c, (1,), "--grid")
    loads = next(limit for limit in one.limits if limit.name == "loads in flight")
    assert one.dram_bytes == 2 * 4096  # 4 KiB read, 4 KiB written
    # an all but idle DRAM's round trip: 4 KiB in flight draw next to nothing of its bandwidth
    assert in_flight.UNLOADED_LATENCY_CYCLES / 1980 <= loads.us < 1.001 * in_flight.UNLOADED_LATENCY_CYCLES / 1980
    assert "4.1 KB in flight (1.02 KB a warp)" in loads.said
    full = launch_time.estimate(c, (N // 1024,), "--grid")
    loads = next(limit for limit in full.limits if limit.name == "loads in flight")
    assert full.bound == "DRAM" and loads.us < 0.5 * full.limits[0].us


def test_more_blocks_that_read_the_same_data_take_no_less_time_for_their_loads_in_flight():
    """Every program reads the same 4 MiB (the L2 serves all but the first): the loads in flight counted
    the DRAM's reads alone, so 8 such blocks were bound at 4x the time of 132 (vLLM's MoE GEMM: 83 and
    35 us estimated, 52 and 54 on the H200, h20a). Each read waits its round trip, the L2's too."""
    c = compiled(str(KERNELS / "launch" / "shared_reads.py"), "h200")
    times = [launch_time.estimate(c, (grid,), "--grid") for grid in (8, 132)]
    flight = [next(x.us for x in t.limits if x.name == "loads in flight") for t in times]
    assert flight[1] >= 0.9 * flight[0], flight
    assert times[1].kernel_us >= 0.95 * times[0].kernel_us, [t.kernel_us for t in times]


def test_spills_past_the_l2_are_moved_to_and_from_the_dram():
    """BLOCK 65536 over 8 warps holds 256 bf16 pairs a thread. Where n is odd, each element moves alone
    and the registers spill 3 KB a thread: the 16 warps of an SM hold 1.5 MB of local memory, the GPU
    200 MB, past the L1 and the L2, so the spills' loads and stores go to the DRAM and bound the launch
    (measured on the H200: 1595 us against 467 us at 2^28). At 2^28 the 40 bytes a thread stay on chip."""
    from tritonscope.analysis import line_time, local_traffic

    file = str(LAUNCH_SET / "elementwise_wide.py")
    for n, spilled in ((100000003, True), (268435456, False)):
        c = compiled(file, "h200", args=(f"n_elements={n}",), config=8)
        grid = (-(-n // 65536),)
        estimate = launch_time.estimate(c, grid, "--grid")
        r = c.resources
        blocks = r.occupancy.blocks_per_sm
        speeds = TARGETS["h200"].speeds
        sms = speeds.multiprocessors
        local = local_traffic.launch_local(c, line_time.estimate(c), grid[0], blocks, sms, speeds.l2_bytes)
        assert local is not None and local.moved > 0
        stack = max(r.local_bytes, r.stack_bytes)
        assert local.resident == blocks * 8 * 32 * stack * sms
        said = [a for a in estimate.assumptions if "of local memory" in a]
        if spilled:
            assert stack > 2000 and local.dram == local.l2 == local.moved  # past twice the L1 and the L2
            assert estimate.bound == "DRAM" and estimate.dram_bytes > local.moved
            assert said and said[0].endswith("100% of it from the DRAM")
        else:
            assert stack < 100 and local.dram == 0 and said[0].endswith("held on chip")


def test_addresses_from_loaded_values_say_what_they_assume():
    """An MoE block's expert id is data: the estimate takes the blocks that load it from different
    places to read different experts' weights, and says so (it said nothing of it)."""
    moe = compiled(str(KERNELS / "launch_set" / "moe_matmul.py"), "h200", args=("M=512",))
    estimate = launch_time.estimate(moe, (1024,), "--grid")
    said = [a for a in estimate.assumptions if "addresses from loaded values" in a]
    assert said and said[0].startswith("lines ") and "the DRAM moves less where they repeat" in said[0]
    plain = launch_time.estimate(compiled(COPY, "h200"), (N // 1024,), "--grid")
    assert not any("loaded values" in a for a in plain.assumptions)


def test_programs_that_load_the_same_indices_read_the_same_rows():
    """A mixture of experts' matmul (vLLM's shape) reads its tokens' rows and its expert's weights at
    addresses loaded from memory. Programs of one block of token slots load the same token ids and
    the same expert id (the same addresses: the same values), so they read the same rows of A: one
    tile per block of slots, where every program's read was counted from the DRAM before (1.8 GB at
    M=256 for 2 MB of tokens). The weights are told apart by block and column block: which blocks share
    an expert is data. On the H200 the launch measured 366 us; the estimate was 895 us, now 477."""
    from tritonscope.analysis import dram_reuse, program_traffic, trip_counts

    c = compiled(str(LAUNCH_SET / "moe_matmul.py"), "h200", config=3)  # M=256, 64-slot blocks, 64 columns
    blocks, columns = -(-(256 * 2 + 8 * 63) // 64), 14336 // 64
    values = trip_counts.known_values(c)  # the file's defaults: M=256, strides
    assert values["M"] == 256
    traffic = program_traffic.evaluate(c.stages[Stage.TTIR], (blocks * columns, 1, 1), values)
    gathers = {a.base: a for a in traffic.accesses if a.kind == "load" and not a.known}
    assert set(gathers) == {"a_ptr", "b_ptr"} and all(a.keyed for a in gathers.values())
    assert len(set(gathers["a_ptr"].first)) == blocks  # a block of slots' tokens, whatever its columns
    assert len(set(gathers["b_ptr"].first)) == blocks * columns
    speeds = TARGETS["h200"].speeds
    memory = dram_reuse.memory_traffic(traffic, speeds.multiprocessors, speeds.l2_bytes * launch_time.L2_KEPT)
    tokens = gathers["a_ptr"].bytes.sum()
    assert tokens > 1.5e9 and memory.dram < gathers["b_ptr"].bytes.sum() + 0.05 * tokens
    estimate = launch_time.estimate(c, (blocks * columns,), "--grid")
    assert 400 < estimate.kernel_us < 520


def test_a_pipeline_of_s_stages_keeps_s_minus_1_in_flight():
    """A skinny matmul's copies (LDGSTS) are committed a stage at a time and waited for by `DEPBAR.LE
    SB0, S - 2`: a warp holds S - 1 stages of its tiles in flight (16 x 128 of x and 128 x 64 of w,
    bf16, over 4 warps: 5 KB a stage), not the S its prologue and loop body issue. With 2 stages the
    launch is bound by its loads in flight (measured on the H200: 116 us, the others 44-53 us)."""
    from tritonscope.analysis import in_flight, scoreboards

    file = str(LAUNCH_SET / "matmul_skinny.py")
    wide = (16 * 128 + 128 * 64) * 2
    for config, stages, tile in ((6, 2, (16 * 64 + 64 * 64) * 2), (0, 4, wide), (7, 6, wide)):
        for target in ("h200", "sm80"):
            c = compiled(file, target, config=config)
            assert in_flight.warp_bytes(scoreboards.schedule(c)) == (stages - 1) * tile / 4, (config, target)
    shallow = launch_time.estimate(compiled(file, "h200", config=6), (8192 // 64,), "--grid")
    assert shallow.bound == "loads in flight"


def test_masked_off_elements_move_no_bytes():
    """The gather's config of 4096-column blocks over 8 warps at rows of 512 columns: the mask lets 1/8
    of each block's elements through, so only one warp's loads and stores move bytes. The per-warp
    DRAM demand and the loads in flight are that share (on the H200 the launch measured 135 us; the
    estimate was 556 us, bound by the DRAM of all 8 warps' full rows)."""
    from tritonscope.analysis import in_flight, program_traffic, scoreboards, trip_counts

    c = compiled(str(LAUNCH_SET / "gather_rows.py"), "h200", config=6)
    values = trip_counts.known_values(c)
    assert (values["dim"], values["n_index"]) == (512, 131072)
    grid = (131072, 1, 1)
    traffic = program_traffic.evaluate(c.stages[Stage.TTIR], grid, values)
    rows = [a for a in traffic.accesses if a.elements == 4096]
    assert len(rows) == 2 and all(a.in_bounds == 512 / 4096 for a in rows)  # the table's load, the store
    assert all(float(a.bytes[0]) == 512 * 2 for a in rows if a.kind == "store")
    estimate = launch_time.estimate(c, grid, "--grid")
    assert estimate.per_warp_bound != "DRAM"
    loads = next(limit for limit in estimate.limits if limit.name == "loads in flight")
    per_warp = in_flight.warp_bytes(scoreboards.schedule(c))
    share = launch_time._loads_in_bounds(traffic)  # the table's row 1/8, the index in full
    assert 0.12 < share < 0.13 and f"({launch_time._bytes(per_warp * share)} a warp)" in loads.said
    assert 90 < estimate.kernel_us < 160


def test_a_row_bound_chosen_per_program_is_followed():
    """`cols < tl.where(row < n_rows, n_cols, 0)`: every program's row is in range, so its bound is n_cols
    and a 4096-column row is read whole (the select used to take both sides' span, half the row)."""
    from tritonscope.analysis import program_traffic, trip_counts

    c = compiled(str(LAUNCH_SET / "softmax_rows.py"), "h200", config=0)
    values = trip_counts.known_values(c)
    n_rows, n_cols = values["n_rows"], values["n_cols"]
    traffic = program_traffic.evaluate(c.stages[Stage.TTIR], (n_rows, 1, 1), values)
    assert {a.in_bounds for a in traffic.accesses} == {1.0}
    evaluated = traffic.evaluated
    assert sum(float(a.bytes.sum()) for a in traffic.accesses) == 2 * evaluated * n_cols * 2
    estimate = launch_time.estimate(c, (n_rows,), "--grid")
    assert estimate.bound == "DRAM" and abs(estimate.dram_bytes - 2 * n_rows * n_cols * 2) < 0.01 * estimate.dram_bytes


def test_a_rows_last_block_counts_the_columns_its_mask_lets_through():
    """A loop over a row's columns in blocks of 256 (the first trip's values stand for the others):
    at 1,000 columns the last of its 4 blocks holds 232 in bounds, so the row's reads are 1,000
    columns' bytes, not 4 x 256 (the loop's body is walked again for its last trip's masks)."""
    from tritonscope.analysis import program_traffic

    c = compiled(str(LAUNCH_SET / "reduce_rows.py"), "h200", config=3, args=("n_cols=1000", "stride_row=1000"))
    rows = 4096
    traffic = program_traffic.evaluate(c.stages[Stage.TTIR], (rows, 1, 1), {"n_rows": rows, "n_cols": 1000})
    load = next(a for a in traffic.accesses if a.kind == "load")
    assert load.runs == 4 and load.elements == 256
    assert float(load.bytes.sum()) == rows * 1000 * 2
    assert abs(load.in_bounds - 1000 / 1024) < 1e-9
    # a whole number of blocks: every trip in bounds
    whole = program_traffic.evaluate(c.stages[Stage.TTIR], (rows, 1, 1), {"n_rows": rows, "n_cols": 1024})
    assert float(next(a for a in whole.accesses if a.kind == "load").bytes.sum()) == rows * 1024 * 2


def test_programs_past_the_data_move_nothing_however_many_the_grid_has():
    """A grid of a million copies over 8,192 elements: past the first 16,384 programs (evaluated, the
    rest taken like them), a sample spread over the others finds them all masked off; the launch
    moves the 32 KB read and the 32 KB written, not 4 MB (the first programs' 64 KB, 61 times)."""
    c = compiled(COPY, "h200", args=("n=8192",))
    estimate = launch_time.estimate(c, (10**6,), "--grid")
    assert abs(estimate.dram_bytes - 2 * 4 * 8192) < 1e-6
    assert any("a sample spread over them" in a for a in estimate.assumptions)
    whole = launch_time.estimate(compiled(COPY, "h200", args=(f"n={1024 * 10**6}",)), (10**6,), "--grid")
    assert abs(whole.dram_bytes - 2 * 4 * 1024 * 10**6) < 1e-6 * whole.dram_bytes  # every program's block


def test_a_dot_lowered_to_fma_instructions_has_no_tensor_core_limit():
    """On Turing, Triton lowers matmul_autotune's fp16 dot to FMA instructions (no matrix instruction in
    the SASS, as explain's finding says): its launch was bound by 'tensor cores' it never used. The
    same kernel on the H100 keeps the limit."""
    from cli_process import tritonscope

    limits = {}
    for target in ("sm75", "sm90"):
        document = json.loads(
            tritonscope(
                "explain", "sample:matmul_autotune", "-t", target, "--config", "7", "--no-what-if", "--json"
            ).stdout
        )
        limits[target] = [limit["name"] for limit in document["time"]["launch"]["limits"]]
        matrix = document["resources"]["instructions"]["matrix"]
        assert (matrix > 0) == (target == "sm90"), (target, matrix)
    assert "tensor cores" not in limits["sm75"] and "tensor cores" in limits["sm90"]


def test_a_grid_for_an_amd_target_is_refused_not_ignored(cli):
    said = cli("explain", "sample:vector_add", "-t", "gfx942", "--grid", "97", expect=2).stderr
    assert "--grid: gfx942 gets no launch time (the per-warp model reads NVIDIA's machine code)" in said


def test_a_programs_one_element_at_a_data_address_is_not_said_to_multiply_the_dram(cli):
    """Liger's cross-entropy reads and writes one element of each row at the label's column (`x_ptr + y`):
    2 bytes a program against its 256 KB row. The launch's notes said the DRAM moved 4x the bytes of
    those lines, beside the headline figures, for a share of the traffic under 0.001%."""
    said = cli("explain", KERNELS / "cross_entropy_rows.py", "-t", "h200", "--grid", "8192", "--no-what-if").stdout
    assert "each block waiting on its loads from the DRAM" in said and "scattered addresses" not in said


def test_query_heads_of_a_group_read_their_kv_rows_once():
    """Decode attention with grouped queries (GQA): the heads of a group read the same K and V rows,
    through indices loaded from bounds loaded too (a split's length read from memory, times the
    split's id). Those bounds were not followed (a length divided by a count read from memory), so
    every program's rows were its own: the same 4.4 GB of DRAM for 1, 8 or 32 heads a group (SGLang's
    kernel). The H200 (.gpu run of 2026-12-01, this kernel, 16 trips a split) took 1,071 us at 1 head a
    group, 910 at 8 and 904 at 32; estimated 1,044 and 818 and 818 (the blocks' own time bounds them)."""
    from tritonscope.analysis import program_traffic, trip_counts

    file = str(KERNELS / "launch" / "gqa_decode.py")
    pointers = ("q_ptr=*bf16", "k_ptr=*bf16", "v_ptr=*bf16", "out_ptr=*fp32", "kv_indptr=*i32",
                "kv_indices=*i64", "num_splits=*i32")  # fmt: skip
    grid, drams, times = (32, 32, 8), {}, {}
    for group in (1, 8):
        args = (*pointers, "n_heads=32", f"stride_kt={32 // group * 128}", "stride_kh=128")
        c = compiled(file, "h200", constexprs=(f"GROUP={group}", "BLOCK_N=64", "HEAD_DIM=128"), args=args)
        traffic = program_traffic.evaluate(c.stages[Stage.TTIR], grid, trip_counts.known_values(c))
        rows = [a for a in traffic.accesses if a.base in ("k_ptr", "v_ptr")]
        assert len(rows) == 2 and all(a.keyed for a in rows)
        # told apart by batch, split and KV head: 32 x 8 x (32 / group)
        assert {len(set(a.first)) for a in rows} == {32 * 8 * 32 // group}
        estimate = launch_time.estimate(c, grid, "--grid")
        drams[group], times[group] = estimate.dram_bytes, estimate.kernel_us
    assert 6 < drams[1] / drams[8] < 8.5, drams
    assert 0.9 * 1071 < times[1] < 1.1 * 1071 and 0.8 * 910 < times[8] < 1.1 * 910, times


def test_a_grid_axis_the_kernel_never_reads_is_said():
    """fla's chunk_delta_h reads tl.program_id(0) alone; a --grid of two axes made 64 programs along
    axis 1 repeat axis 0's four (DRAM 6 MB where a launch of the kernel's own grid moves 400): said."""
    c = compiled(COPY, "h200")
    repeated = launch_time.estimate(c, (N // 1024, 4), "--grid")
    said = [a for a in repeated.assumptions if "never reads" in a]
    assert said == [
        "the grid's axis 1 has 4 programs, and the kernel never reads tl.program_id(1): they repeat the same work"
    ]
    assert not any("never reads" in a for a in launch_time.estimate(c, (N // 1024,), "--grid").assumptions)


def test_a_packed_weights_rows_are_read_once_not_once_per_unpacked_row():
    """int4 weights eight to an int32 (gemlite, GPTQ, AWQ): a 64-row tile of unpacked weights reads 8
    packed rows (`offs_k // 8`), each 8 times in one load, which the memory serves once. Every row was
    counted apart: the B reads 8x their bytes, and gemlite's GEMM bound by 67 MB of DRAM it does not
    move (helper h18a): its packed weights are 8.4 MB. On the H200 (2026-12-01) this kernel took 44,
    110 and 78 us at M=128, N=K=4096 in 64x64x64, 16x128x128 and 128x128x64 tiles, estimated 35, 70
    and 63 (the order kept; 35, 72 and 63 before); 418, 1,565 and 264 us at M=512, N=K=8192, estimated
    249, 1,055 and 236 (329, 1,090 and 238 before, the 64x64 tile bound by the L2's 8x rows): the
    model is short of the unpacking's time, which the repeated rows' bytes had partly made up for."""
    from tritonscope.analysis import program_traffic, trip_counts

    c = compiled(str(KERNELS / "launch" / "packed_int4.py"), "sm90")
    grid = (2, 64, 1)  # M=128, N=4096 in 64 x 64 tiles
    traffic = program_traffic.evaluate(c.stages[Stage.TTIR], grid, trip_counts.known_values(c))
    packed = next(a for a in traffic.accesses if a.base == "b_ptr")
    assert packed.elements == 64 * 64
    # each program: its 64 columns of the K / 8 = 512 packed rows, 4 bytes each, over the 64 trips
    assert float(packed.bytes.sum()) == 2 * 64 * (512 * 64 * 4)
    estimate = launch_time.estimate(c, grid, "--grid")
    weights, activations, out = 512 * 4096 * 4, 128 * 4096 * 2, 128 * 4096 * 2
    assert weights + activations + out <= estimate.dram_bytes < 1.1 * (weights + activations + out)


def test_a_tile_wider_than_its_rows_moves_the_elements_its_mask_lets_through():
    """A tile of 128 x 256 over rows of 128 (masked: mamba's ssd_chunk_state at its head size): row r's
    masked columns are row r+1's addresses. Counting a tile's different addresses (a packed weight's
    repeated rows) took the overlap off and the mask's half again: 16.5 MB of 32.8 (helper h19a), and
    fit --rank picked the config it undercounted."""
    from tritonscope.analysis import program_traffic, trip_counts

    file = str(KERNELS / "launch" / "tiles.py")
    c = compiled(
        file, "sm90", constexprs=("BLOCK_M=128", "BLOCK_N=256"), args=("n_rows=64", "n_cols=128", "stride=128")
    )
    traffic = program_traffic.evaluate(c.stages[Stage.TTIR], (1, 1, 1), trip_counts.known_values(c))
    assert {a.kind: float(a.bytes.sum()) for a in traffic.accesses} == {"load": 64 * 128 * 2, "store": 64 * 128 * 2}


def test_a_bool_pointers_stores_and_a_bool_flags_branch_are_counted():
    """A `*i1` mask's store goes through an i8 pointer (`tt.bitcast`), which was not followed: the mask's
    writes were left out of the DRAM (flash-attention's layer norm with dropout, 269 MB of about 302);
    a bool given with -a (`copy=False`) was a value not known, its branch taken half the time (h19a)."""
    file = str(KERNELS / "launch" / "bool_mask.py")
    rows, cols = 4096, 4096
    expected = {True: rows * cols * (2 + 1 + 2), False: rows * cols * (2 + 1)}
    for copy, moved in expected.items():
        c = compiled(file, "sm90", args=(f"copy={copy}",))
        estimate = launch_time.estimate(c, (rows, 1, 1), "--grid")
        assert estimate.dram_bytes == moved, (copy, estimate.dram_bytes)
        assert not any("not known" in said for said in estimate.assumptions)


def test_why_slower_names_the_limit_that_binds_not_the_one_that_grew_most():
    """Two DRAM-bound configs (3,992 against 3,857 us): the line named the loads in flight, which grew
    most but take 1,645 us of a 4,004 us launch, with the slower one's figure alone (h20a)."""
    from dataclasses import replace

    from tritonscope.analysis.launch_time import LaunchEstimate, Limit, versus

    def launch(dram_us: float, in_flight_us: float, dram_bytes: float) -> LaunchEstimate:
        limits = (Limit("DRAM", dram_us, "DRAM"), Limit("loads in flight", in_flight_us, "in flight"))
        return LaunchEstimate(
            dram_us, "DRAM", "h200", "H200 SXM", (1, 1, 1), "--grid", 1, 1, 132, 1, 1, 1.0, 1.0, dram_bytes,
            0.0, 0.0, 5.5, limits, "issue",
        )  # fmt: skip

    fast, slow = launch(3857.0, 900.0, 16.3e9), launch(3992.0, 1645.0, 16.9e9)
    assert versus(fast, slow) == "1.04x: 16.9 GB from the DRAM against 16.3 GB"
    starved = replace(slow, kernel_us=5000.0, limits=(Limit("loads in flight", 5000.0, "8 MB in flight"),))
    assert versus(fast, starved) == "1.30x: its loads in flight (8 MB in flight) take 5,000.0 us against 900.0"


def test_the_targets_table_in_the_docs_is_the_speeds_the_estimate_reads():
    """docs/targets.md's table of each target's figures, held to core/targets.py's Speeds (a launch
    cost of 3.5 us was read as the 5.5 us explain says: the table names it the empty launch's)."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "targets.md").read_text()
    rows = [line.split("|")[1:-1] for line in text.splitlines() if re.match(r"\| (sm|h)\d", line)]
    rows = [[cell.strip() for cell in row] for row in rows if len(row) == 9]
    assert len(rows) >= 8
    for name, gpu, sms, clock, dram, *_, launch in rows:
        speeds = TARGETS[name].speeds
        assert speeds is not None, name
        assert (gpu, int(sms), clock) == (speeds.gpu, speeds.multiprocessors, f"{speeds.clock_mhz} MHz"), name
        assert dram == f"{speeds.dram_bytes_per_s / 1e9:.0f} GB/s", name
        assert launch == f"{speeds.launch_us:g} us", name
    assert f"{speeds.launch_us + launch_time.FIRST_ACCESS_US:g} of them a launch's fixed cost" in text
