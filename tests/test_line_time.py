"""The per-line time model (analysis/line_time.py) on what it can be sure of, with real compiles."""

from __future__ import annotations

from importlib.metadata import version

from conftest import KERNELS, compiled

from tritonscope.analysis import line_time, served_by

_TRITON = tuple(int(p) for p in version("triton").split(".")[:2])


def _line_of(c, text: str) -> int:
    """The kernel-file line whose code starts with `text`."""
    for offset, code in enumerate(c.kernel.source.splitlines()):
        if code.strip().startswith(text):
            return c.kernel.first_line + offset
    raise AssertionError(f"no line starts with {text!r}")


def test_a_chain_of_dependent_fmas_puts_the_time_on_its_line():
    """256 dependent FMAs on one line, each waiting out the previous one's stall count: that line
    holds nearly all the estimated time, and its cycles are at least 256 x the FMA's 4-cycle latency."""
    c = compiled(str(KERNELS / "fma_one_line.py"))
    estimate = line_time.estimate(c)
    chain = estimate.line(_line_of(c, "x = x * a + b"))
    assert estimate.ranked[0].line == chain.line
    assert chain.share > 0.8
    assert chain.cycles >= 256 * 4 and chain.instructions >= 256


def test_a_subroutine_call_is_no_loop_and_its_work_is_its_callers_line():
    """ptxas's int64 remainder routine sits after EXIT and returns to each of its CALLs: the returns
    were taken for loops of 16 assumed trips, nested, 16^calls (8 calls: 1.9e13 cycles). Its body
    runs once per call, and its time is the `%` line's."""
    file = str(KERNELS / "int64_remainder.py")
    one, eight = (
        line_time.estimate(compiled(file, constexprs=(f"BLOCK={b}",), args=("N=1000",), num_warps=1)) for b in (32, 256)
    )
    for estimate in (one, eight):
        assert not any("assumed to run" in said for said in estimate.assumptions), estimate.assumptions
    assert one.cycles < eight.cycles < 16 * one.cycles  # 8 calls, each a few hundred cycles
    remainder = _line_of(compiled(file, constexprs=("BLOCK=256",), args=("N=1000",)), "offs = ")
    assert eight.ranked[0].line == remainder and eight.line(remainder).share > 0.5
    # a `@!P5 CALL.REL.NOINC` to the next instruction, which runs on to EXIT, leaves a loop: no subroutine
    from tritonscope.analysis import scoreboards

    spilled = scoreboards.schedule(compiled("sample:matmul", "sm80", maxnreg=64))
    if version("triton").startswith("3.6"):  # Triton 3.9's ptxas makes no such CALL of this kernel
        assert any(s.base == "CALL" for s in spilled.listing.instructions)
    assert scoreboards.subroutines(spilled.listing) == []


def test_an_out_of_line_wait_that_branches_back_into_the_body_is_no_loop():
    """The TMA attention sample's mbarrier waits retry in blocks ptxas puts after EXIT, each ending in a
    branch back to where the wait was: three such branches were taken for loops of 16 assumed trips
    around most of the kernel (Triton's tutorial 06 at 255 registers: 1.5e9 cycles a warp, 2.9e5 GB
    of spills a launch). The K loop alone is a loop, counted from the arguments; the per-line shares
    of a kernel whose helper is inlined say where they count the helper's lines too."""
    estimate = line_time.estimate(compiled("sample:fused_attention_tma", "sm90"))
    assert estimate.assumptions == ("loop trips from the arguments (line 53: 32)",), estimate.assumptions
    call = [t for t in estimate.lines if t.calls]
    assert call and all(t.line not in t.calls for t in call)


def test_the_line_that_uses_the_loads_waits_on_them():
    """vector_add: `output = x + y` is where a warp waits for its loads: the top line, with its
    time a wait on the loads of the two `tl.load` lines, counted as global loads."""
    c = compiled("sample:vector_add")
    estimate = line_time.estimate(c)
    add = _line_of(c, "output = x + y")
    assert estimate.ranked[0].line == add
    top = estimate.line(add)
    waited_on = top.waits_on[0]
    assert waited_on.kind == "global load"
    assert set(waited_on.lines) == {_line_of(c, "x = tl.load"), _line_of(c, "y = tl.load")}
    assert top.waited > top.issue
    assert estimate.bound in ("DRAM", "latency")


def test_the_store_line_holds_the_drain():
    """The stores' drain after EXIT is charged once, where the sampler sees exiting warps: the line of
    the instruction after the last EXIT. Triton 3.6's line table puts it on the store's line; 3.9's on
    the `def` line (its kernels end in a line-less branch after an EXIT of the function's own line)."""
    c = compiled("sample:vector_add")
    estimate = line_time.estimate(c)
    drained = [t.line for t in estimate.lines if t.drain > 0]
    store, definition = _line_of(c, "tl.store"), _line_of(c, "def add_kernel")
    assert drained == [store if _TRITON < (3, 9) else definition]


def test_shares_add_up_and_loops_are_counted_from_the_arguments():
    """Each instruction counts once per line here (no inlined helper): shares sum to 1. matmul's
    K loop runs K / BLOCK_SIZE_K = 4096 / 64 times (the sample's defaults), which the estimate
    says, and only the K loop's warp-group matrix instructions repeat that often."""
    c = compiled("sample:matmul")
    estimate = line_time.estimate(c)
    assert abs(sum(t.share for t in estimate.lines) - 1) < 1e-6
    loop = _line_of(c, "for k in ")
    assert f"loop trips from the arguments (line {loop}: 64)" in estimate.assumptions
    repeats = {s.repeats for s in estimate.instructions if s.opcode.startswith("HGMMA")}
    assert repeats == {64.0}


def test_second_passes_and_shared_weights_are_served_by_the_l2():
    """layernorm reads X three times: the second and third loops' loads are served by the L2, and so
    are W and B, which every program reads alike; the first pass over X comes from the DRAM."""
    c = compiled("sample:layernorm")
    cached = served_by.cached_loads(c)
    loads = [n for n, code in enumerate(c.kernel.source.splitlines(), c.kernel.first_line) if "tl.load(X" in code]
    assert len(loads) == 3
    assert loads[0] not in cached
    assert cached[loads[1]] == cached[loads[2]] == served_by.READ_BEFORE
    assert cached[_line_of(c, "w = tl.load")] == served_by.SHARED_BY_PROGRAMS


def test_no_estimate_without_sass():
    assert line_time.estimate(compiled("sample:vector_add", "gfx942")) is None


def test_warps_sharing_a_scheduler_queue_for_it():
    """A warp's time when W warps each need `demand` cycles of the scheduler in a `timeline` of their
    own: the finite-source queue. Two warps each needing half their timeline (service over time away
    r = 1) keep it busy 1 - 1 / (1 + 2r + 2r^2) = 80% of the time: 2 x 50 / 0.8 = 125 cycles, where
    neither the timeline (100) nor the demand (2 x 50) alone says so (attention's 2 warps per
    scheduler on the H200: docs/data/h200-2026-11-29-attention-ncu.txt)."""
    shared = line_time._shared_cycles
    assert shared(1, 40, 100) == 100  # one warp: its own timeline
    assert shared(2, 50, 100) == 125
    assert 320 <= shared(32, 10, 100) < 320 * 1.001  # far past the crossing: W x demand
    assert 125 < shared(2.5, 50, 100) < shared(3, 50, 100)  # a fractional count: between its neighbours
    assert shared(4, 0, 100) == 100 and shared(4, 30, 30) == 120  # no demand; nothing but demand


def test_a_copy_group_waits_for_the_sm_to_fill_the_blocks_stage():
    """Every warp of a block copies its part of a pipeline stage at once, and the SM's L1 fills at 64
    bytes a clock: the wait for a commit group takes the block's stage bytes / 64 cycles beyond the
    latency (a plain load's too: no pipeline is not faster than 2 stages). The launch set's
    128x128x64 bf16 matmul stages 32 KiB (A's 128x64 and B's 64x128 tiles):
    512 cycles. With 2 stages the wait is exposed every iteration; with 4 three stages hide it (on the
    H200 at 1024x1024x8192, 2 stages took 2.45x 4 stages' time; 1.24x estimated before, 1.7x now)."""
    from tritonscope.analysis import launch_time, scoreboards, warp_timeline

    file = str(KERNELS / "launch_set" / "matmul_square.py")
    sizes = ("M=1024", "N=1024", "K=8192", "stride_am=8192", "stride_bk=1024", "stride_cm=1024")
    two = compiled(file, "h200", config=5, args=sizes)
    assert (two.metadata["num_stages"], two.metadata["num_warps"]) == (2, 4)
    schedule = scoreboards.schedule(two)
    walk = warp_timeline.Timeline(schedule, line_time._costs(two), 16, 4, {})
    commits = [s.offset for s in schedule.listing.instructions if s.base == "LDGDEPBAR"]
    # A's tile and B's are committed one after the other: B's group arrives once both are in
    stage = [128 * 64 * 2 / 64, (128 * 64 + 64 * 128) * 2 / 64]  # the prologue's, then the loop's
    assert [walk._fill(commit, commit + 16) for commit in commits] == stage * 2
    four = compiled(file, "h200", config=1, args=sizes)
    grid = ((1024 // 128) ** 2,)
    slower = launch_time.estimate(two, grid, "--grid").kernel_us / launch_time.estimate(four, grid, "--grid").kernel_us
    assert slower > 1.5
    # no pipeline: each warp's loads into registers wait for the same fill, every iteration
    one = compiled(file, "h200", config=5, args=sizes, num_stages=1)
    loads = [s.offset for s in scoreboards.schedule(one).listing.instructions if s.base == "LDG"]
    assert loads and not any(s.base == "LDGDEPBAR" for s in scoreboards.schedule(one).listing.instructions)
    assert launch_time.estimate(one, grid, "--grid").kernel_us > launch_time.estimate(two, grid, "--grid").kernel_us


def test_a_later_loops_carried_register_read_waits_for_no_more_than_a_register_read():
    """Two loops in a row: the second's store (a read scoreboard, its registers read) is waited for at
    the top of its next iteration. Counted back from the previous pass's clock, not from where this
    pass's iteration began, the wait took in every cycle the first loop's carried waits had moved its
    start by: 36,726 cycles per iteration (Liger's cross-entropy: 89% of its time, `fit --rank` then
    picking its slowest num_warps)."""
    c = compiled(str(KERNELS / "cross_entropy_rows.py"))
    estimate = line_time.estimate(c)
    reads = [w for s in estimate.instructions for w in s.waits if w.kind == "register read"]
    assert reads and max(w.cycles for w in reads) < 1000, sorted(w.cycles for w in reads)[-3:]  # 36,726 before


def test_a_flattened_loops_epilogue_runs_once_a_row_not_every_iteration():
    """flatten=True makes one loop of rows x column steps (32 x 16 for program 0); the row's epilogue
    sits in it behind a branch, and was charged all 512 iterations (Triton's tutorial 09: its store
    at 22% of the time, under 1% with the loops nested). It runs once every 16, the inner trips."""
    from tritonscope.analysis import trip_counts

    file, args = str(KERNELS / "flattened_loop.py"), ("n_rows=4224", "n_cols=8192")
    flat, nested = (
        compiled(file, constexprs=("NUM_PROGRAMS=132", "BLOCK=512", f"FLATTEN={f}"), args=args) for f in ("1", "0")
    )
    loop, store = _line_of(flat, "for row in"), _line_of(flat, "tl.store(")
    assert trip_counts.loop_trips(flat) == {loop: 512} and trip_counts.loop_trips(nested)[loop] == 32
    assert trip_counts.flattened(flat)[store] == 16 and trip_counts.flattened(nested) == {}
    estimate = line_time.estimate(flat)
    stored = estimate.line(store)
    # charged all 512 iterations, its instructions would be a cycle each at least
    assert stored.share < 0.02 and stored.cycles < stored.instructions * 512, stored
    assert any("flattened loop's outer lines" in said and "once every 16" in said for said in estimate.assumptions)


def test_a_barriers_wait_names_the_barriers_line():
    """A BAR.SYNC's wait is charged where the warp sampler sees it, the instruction after it, often on
    another line (Liger's kl_div: its `tl.log` line, for the `tl.sum` of line 92): the wait names the
    barrier's own line now; it said "at a barrier"."""
    c = compiled("sample:layernorm", "sm90")
    waits = [w for line in line_time.estimate(c).lines for w in line.waits_on if w.kind == "the block's other warps"]
    sums = {_line_of(c, "mean = tl.sum("), _line_of(c, "var = tl.sum(")}
    assert waits and {n for w in waits for n in w.lines} <= sums, waits
    assert all(w.said.startswith("waits for the block's other warps at the barrier of line ") for w in waits)


def test_a_conversion_on_the_loads_scoreboard_is_not_said_to_be_a_load():
    """`x * alpha` with alpha an integer argument: its I2F shares the loads' scoreboard, and line 12 was said
    to wait "on the loads of lines 10, 11, 12 (global load)", once more beside "lines 10, 11" (h24b)."""
    kernel = KERNELS / "scale_add_int_alpha.py"
    c = compiled(str(kernel), "sm80", constexprs=("BLOCK=1024",), num_warps=8)
    sass = c.stages[c.variant.target_info.vendor.machine_code]
    assert "I2F" in sass  # the conversion this is about
    estimate = line_time.estimate(c)
    fma = _line_of(c, "out = x * alpha + y")
    loads = {_line_of(c, "x = tl.load"), _line_of(c, "y = tl.load")}
    waits = estimate.line(fma).waits_on
    assert [w.lines for w in waits if w.kind == "global load"] == [tuple(sorted(loads))], waits
    assert all(fma not in w.lines for w in waits if w.kind == "global load"), waits
