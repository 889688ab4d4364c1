"""Atomics and lookups at addresses from data (analysis/atomics.py, the tables of dram_reuse.py and
program_values.py's bounded data), with real compiles: data taken modulo a constant lies in a table
of that many elements; a table the L2 holds comes from the DRAM once; atomics that share a few
addresses wait for one L2 slice. What the H200 measured is in docs/data/h200-atomics."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from conftest import compiled

from tritonscope.analysis import atomics, dram_reuse, launch_time, program_traffic, program_values
from tritonscope.core.stages import Stage
from tritonscope.core.targets import TARGETS

KERNELS = Path(__file__).parent / "kernels"
HISTOGRAM = str(KERNELS / "timing" / "histogram.py")
LOOKUP = str(KERNELS / "tables" / "lookup.py")
SCATTER = str(KERNELS / "tables" / "scatter.py")
CLAMPED = str(KERNELS / "tables" / "clamped_histogram.py")
N = 2**25
H200 = TARGETS["h200"].speeds


def test_data_modulo_or_masked_by_a_constant_is_bounded_by_it():
    data = program_values.loaded(1024, np.array([7]))
    bins = program_values.apply("arith.remsi", "", [data, program_values.scalar(256)])
    assert isinstance(bins, program_values.Span) and bins.bounded and bins.data == 1024
    assert (int(bins.lo[0]), int(bins.hi[0])) == (0, 255)
    masked = program_values.apply("arith.andi", "", [program_values.scalar(63), data])
    assert masked.bounded and (int(masked.lo[0]), int(masked.hi[0])) == (0, 63)
    # what follows from bounded values alone stays bounded; with unbounded data it does not
    table = program_values.Address("table", np.zeros(1, np.int64), np.zeros(1, np.int64), 4)
    address = program_values.apply("tt.addptr", "", [table, bins])
    assert address.bounded and (int(address.lo[0]), int(address.hi[0])) == (0, 255 * 4)
    assert not program_values.apply("tt.addptr", "", [table, data]).bounded
    assert not program_values.apply("arith.addi", "", [bins, data]).bounded
    assert program_values.apply("arith.muli", "", [bins, program_values.scalar(2)]).bounded


def test_data_capped_by_a_known_value_is_bounded_and_an_integer_made_of_floats_is_data():
    data = program_values.loaded(1024, np.array([7]))
    floor = program_values.apply("arith.maxsi", "", [data, program_values.scalar(0)])
    assert not floor.bounded  # a floor alone bounds nothing above
    capped = program_values.apply("arith.minsi", "", [floor, program_values.scalar(255)])
    assert capped.bounded and (int(capped.lo[0]), int(capped.hi[0])) == (0, 255) and capped.data == 1024
    made = program_values.apply("arith.fptosi", "%3 = arith.fptosi %2 : tensor<1024xf32> to tensor<1024xi32>", [None])
    assert isinstance(made, program_values.Span) and made.data == 1024 and not made.bounded


def test_clamped_bins_share_their_addresses_as_bins_modulo_the_count_do():
    """`min(max(x, 0), N_BINS - 1)` was taken for data of unknown bounds: 33.6 million atomics on as many
    addresses, 4.5x faster than the same histogram with `x % N_BINS`; a float's bin (`.to(tl.int32)`) was
    no value at all: 4.2 million atomics (a sector's worth of elements each), on 4.2 million addresses (h24a)."""
    modulo = launch_time.estimate(compiled(HISTOGRAM, "h200", constexprs=("N_BINS=256",)), (N // 1024,), "--grid")
    for kernel, given in (("clamped_kernel", ()), ("float_kernel", ("x_ptr=*fp32",))):
        c = compiled(CLAMPED, "h200", kernel=kernel, args=given)
        estimate = launch_time.estimate(c, (N // 1024,), "--grid")
        assert estimate.bound == "atomics" and "33.6 million atomics on 256 addresses, 2.5 a clock" in estimate.said
        assert abs(estimate.limits[0].us - modulo.limits[0].us) < 1e-6 * modulo.limits[0].us, kernel


def _traffic(c, grid: int):
    from tritonscope.analysis import trip_counts

    return program_traffic.evaluate(c.stages[Stage.TTIR], (grid, 1, 1), trip_counts.known_values(c))


def test_a_histograms_atomics_address_a_table_of_its_bins():
    c = compiled(HISTOGRAM, "h200", constexprs=("N_BINS=256", "BLOCK=1024"))
    traffic = _traffic(c, N // 1024)
    (atomic,) = [a for a in traffic.accesses if a.atomic]
    assert atomic.atomic == "add" and atomic.table == 256 * 4 and atomic.run == 4
    (read,) = [a for a in traffic.accesses if a.kind == "load"]
    assert read.known and not read.table and not read.atomic
    # the DRAM reads the values once and moves the 1 KB of bins once, not a sector per element
    memory = dram_reuse.memory_traffic(traffic, H200.multiprocessors * 16, H200.l2_bytes * launch_time.L2_KEPT)
    assert abs(memory.dram - (4 * N + 1024)) < 1e-6 * 4 * N
    assert memory.written == 1024


def test_atomics_on_few_addresses_wait_for_one_l2_slice_and_on_many_run_at_the_gpus_peak():
    clock = H200.clock_mhz * 1e6
    few = launch_time.estimate(compiled(HISTOGRAM, "h200", constexprs=("N_BINS=256",)), (N // 1024,), "--grid")
    assert few.bound == "atomics" and few.limits[0].name == "atomics"
    peak, per_slice = atomics.INTEGER_ADD
    assert abs(few.limits[0].us - N / (per_slice * clock) * 1e6) < 1e-6 * few.limits[0].us
    assert "33.6 million atomics on 256 addresses, 2.5 a clock" in few.said
    many = launch_time.estimate(compiled(HISTOGRAM, "h200", constexprs=("N_BINS=1048576",)), (N // 1024,), "--grid")
    assert abs(many.limits[0].us - N / (peak * clock) * 1e6) < 1e-6 * many.limits[0].us
    assert few.kernel_us > 15 * many.kernel_us  # the H200: 4.2-8.7 ms against 0.34 ms
    # a float add is slower at either end; one counter takes one operation every 2 clocks
    weighted = compiled(SCATTER, "h200", kernel="weighted_hist_kernel", constexprs=("N_BINS=64",))
    floats = launch_time.estimate(weighted, (N // 1024,), "--grid")
    assert abs(floats.limits[0].us - N / (atomics.OTHER[1] * clock) * 1e6) < 1e-6 * floats.limits[0].us
    counting = compiled(SCATTER, "h200", kernel="count_kernel", constexprs=("BLOCK=256",))
    counter = launch_time.estimate(counting, (N // 256,), "--grid")
    limit = next(limit for limit in counter.limits if limit.name == "atomics")
    assert abs(limit.us - (N // 256) / (atomics.PER_ADDRESS * clock) * 1e6) < 1e-6 * limit.us
    assert "on 1 address," in limit.said


def test_known_addresses_added_to_by_a_few_programs_each_do_not_wait():
    """SPLIT rows added into one (a split-K reduction's shape): 4 consecutive fp32 values a sector, each
    address shared by SPLIT programs only: the float atomics' peak, a sector an operation."""
    c = compiled(SCATTER, "h200", kernel="accumulate_kernel", constexprs=("SPLIT=8",))
    estimate = launch_time.estimate(c, (8 * 2**22 // 1024,), "--grid")
    limit = next(limit for limit in estimate.limits if limit.name == "atomics")
    operations = 8 * 2**22 * 4 / 32
    assert abs(limit.us - operations / (atomics.OTHER[0] * H200.clock_mhz * 1e6) * 1e6) < 1e-6 * limit.us


def _lookup(table: int):
    c = compiled(LOOKUP, "h200", kernel="lookup_kernel", constexprs=(f"T={table}",))
    return c, launch_time.estimate(c, (N // 1024,), "--grid")


def test_where_a_lookup_table_is_served_follows_its_size():
    """A 1 KB table stays in the L1s (the copy's time: 69 us on the H200); a 4 MB one the L2 holds (each
    4-byte gather a sector, 64 bytes of the L2's port: 240 us); a 256 MB one misses the L2 at random,
    each miss a 128-byte line from the DRAM (786 us)."""
    small, l2_held, large = _lookup(256)[1], _lookup(2**20)[1], _lookup(2**26)[1]
    copy = 2 * 4 * N  # the values read and the results written
    assert abs(small.dram_bytes - copy - 1024) < 1e-6 * copy
    assert small.l2_bytes < copy + 1024 * H200.multiprocessors + 1e6
    assert "a 1.02 KB table by data: each SM's L1 holds it" in " ".join(small.assumptions)
    assert abs(l2_held.dram_bytes - copy - 4 * 2**20) < 1e-6 * copy
    assert l2_held.bound == "L2" and abs(l2_held.l2_bytes - copy - 64 * N) < 1e-6 * copy
    kept = H200.l2_bytes * launch_time.L2_KEPT
    missed = 32 * N * (1 - kept / (4 * 2**26)) * 4  # a sector an element, a line a miss
    assert large.bound == "DRAM" and abs(large.dram_bytes - copy - missed) < 1e-6 * large.dram_bytes
    assert "of them miss the L2" in " ".join(large.assumptions)
    assert small.kernel_us < l2_held.kernel_us < large.kernel_us


def test_a_gathers_sectors_are_not_counted_twice_at_the_l1():
    """The L1's limit counts a gather's bytes as program_traffic gives them (a sector an element), not
    inflated again by its 4-byte instructions."""
    _, estimate = _lookup(2**20)
    l1 = next(limit for limit in estimate.limits if limit.name == "L1")
    rate = H200.multiprocessors * launch_time.L1_BYTES_PER_CLOCK * H200.clock_mhz * 1e6
    assert abs(l1.us * 1e-6 * rate - (8 + 32) * N) < 1e-3 * 40 * N
    assert "x the bytes used" not in l1.said


def test_a_gather_of_unbounded_indices_moves_a_dram_line_an_element():
    """A gather by indices that may fall anywhere (tests/kernels/timing/gather.py): each 4-byte element a
    sector from the L2 and a 128-byte line from the DRAM, as a table past the L2 misses."""
    c = compiled(
        str(KERNELS / "timing" / "gather.py"), "h200", args=("table_ptr=*fp32", "index_ptr=*i32", "out_ptr=*fp32")
    )
    estimate = launch_time.estimate(c, (N // 1024,), "--grid")
    assert abs(estimate.dram_bytes - (8 * N + 128 * N)) < 1e-6 * estimate.dram_bytes
    assert "4-byte pieces at scattered addresses, moved in whole 128-byte lines" in " ".join(estimate.assumptions)


def test_a_table_of_rows_past_the_l2_moves_its_missed_rows_whole():
    """2^22 rows of 512 bytes looked up by data in a 1 GB table (2 GB looked up): each miss moves its row,
    no more (a line only where a run is shorter than one)."""
    c = compiled(LOOKUP, "h200", kernel="row_lookup_kernel", constexprs=("T=2097152", "D=128", "ROWS=16"))
    rows = 2**22
    estimate = launch_time.estimate(c, (rows // 16,), "--grid")
    kept = H200.l2_bytes * launch_time.L2_KEPT
    table, moved = 2**21 * 512, rows * 512
    expected = 4 * rows + moved + moved * (1 - kept / table)  # the indices, the rows written, the misses
    assert abs(estimate.dram_bytes - expected) < 1e-6 * expected
    assert "pieces at scattered addresses" not in " ".join(estimate.assumptions)
