"""What the DRAM moves for narrow pieces (analysis/dram_granule.py), on real compiles of a 2-D copy in
tiles (tests/kernels/launch/tiles.py: the row tiles first), against the sectors and lines counted here
by hand. benchmarks/dram_granule.py times the same tiles on the GPU (docs/data/h200-launch)."""

from __future__ import annotations

from pathlib import Path

from conftest import compiled

from tritonscope.analysis import dram_granule, launch_time, program_traffic
from tritonscope.core.stages import Stage

TILES = str(Path(__file__).parent / "kernels" / "launch" / "tiles.py")
COPY = str(Path(__file__).parent / "kernels" / "launch" / "copy.py")


def _factors(m: int, n: int, rows: int = 65536, cols: int = 4096):
    c = compiled(
        TILES,
        "h200",
        constexprs=(f"BLOCK_M={m}", f"BLOCK_N={n}"),
        args=(f"n_rows={rows}", f"n_cols={cols}", f"stride={cols}"),
    )
    grid = (-(-rows // m) * -(-cols // n),)
    traffic = program_traffic.evaluate(c.stages[Stage.TTIR], (*grid, 1, 1), launch_time._values(c))
    slots = 132 * c.resources.occupancy.blocks_per_sm
    found = dram_granule.factors(c, traffic, slots)
    return {traffic.accesses[i].kind: granule.factor for i, granule in found.items()}, c, grid


def test_a_row_segment_narrower_than_a_sector_costs_the_sector():
    """8 bf16 columns: 16-byte segments. A read costs its 32-byte sector (2x); a write costs the sector
    written and, partly written, read and merged (WRITE_PART_READS, 2.5 sectors more): 7x."""
    found, c, grid = _factors(256, 8)
    assert found == {"load": 2.0, "store": (1 + dram_granule.WRITE_PART_READS) * 32 / 16}
    estimate = launch_time.estimate(c, grid, "--grid")
    used = 65536 * 4096 * 2
    assert estimate.bound == "DRAM" and estimate.dram_bytes == (2.0 + 7.0) * used
    said = "the DRAM moves 7x the bytes line 15 writes: 16-byte pieces, moved in whole 32-byte sectors (a partly"
    assert any(note.startswith(said) for note in estimate.assumptions), estimate.assumptions


def test_unaligned_rows_put_a_segment_across_two_lines_and_part_written_sectors():
    """Rows of 1,000 bf16 (2,000 bytes): row r of a 128-byte-wide tile starts r * 2000 bytes in, so at
    r * 80 modulo 128: only every 8th row's segment lies in one 128-byte line, the others in two. A
    wave covers one column tile (4,096 row tiles), so the lines are the reads' cost. Triton cannot
    prove 16-byte alignment: a thread stores one element, a warp's store 64 bytes in a run; every
    other row starts 16 bytes into a sector, so its runs' ends (16, 80, 144) fall inside 3 of its 5
    sectors, each read, merged and written."""
    found, _, _ = _factors(64, 64, rows=262144, cols=1000)
    lines = [1 if (r * 2000) % 128 == 0 else 2 for r in range(64)]
    assert found["load"] == sum(lines) / len(lines) == 1.875
    aligned = [(r * 2000) % 32 == 0 for r in range(64)]
    sectors = [4 + dram_granule.WRITE_PART_READS * 0 if a else 5 + dram_granule.WRITE_PART_READS * 3 for a in aligned]
    assert found["store"] == sum(sectors) / len(sectors) * 32 / 128 == 2.0625


def test_a_threads_piece_stored_in_narrower_instructions_is_whole_by_the_warps_next():
    """The README's explain example at a size of no divisibility hint: each thread stores its 4 floats
    in four 32-bit stores, and the warp's next three fill what the first left of each sector. It was
    charged 3.5x its bytes ("partly written"); on the H200 a vector add at 2^26+3 took 1.05x 2^26's."""
    n = (1 << 26) + 3
    c = compiled("sample:vector_add", "h200", args=(f"n_elements={n}",))
    estimate = launch_time.estimate(c, (-(-n // 1024),), "--grid")
    assert abs(estimate.dram_bytes - 3 * 4 * n) < 0.01 * 3 * 4 * n, estimate.dram_bytes
    assert not any("partly written" in note for note in estimate.assumptions), estimate.assumptions


def test_a_wave_that_covers_more_of_each_row_costs_less():
    """64-byte segments (32 bf16 columns), the row tiles first, the H200's 2,112 block slots a wave:
    with 16 rows a tile there are 4,096 row tiles, and a wave covers one column tile, 64 bytes of each
    row: half a 128-byte line (2x); with 32 rows, 2,048 row tiles, it covers two (a whole line); with
    64 rows, 1,024 row tiles, three (192 bytes over two lines: 256/192)."""
    assert _factors(16, 32)[0] == {"load": 2.0, "store": 2.0}
    assert _factors(32, 32)[0] == {}
    assert _factors(64, 32)[0] == {"load": 256 / 192, "store": 256 / 192}


def test_whole_rows_and_flat_runs_cost_nothing_more():
    assert _factors(4, 1024)[0] == {}  # 2 KiB segments
    c = compiled(COPY, "h200")
    traffic = program_traffic.evaluate(c.stages[Stage.TTIR], (65536, 1, 1), launch_time._values(c))
    assert dram_granule.factors(c, traffic, 2112) == {}


def test_a_tile_wider_than_its_rows_is_read_whole_but_written_in_runs():
    """4 x 1,024 tiles over rows of 1,000 bf16 (masked): each row is read whole (63 sectors for 2,000
    bytes, under COUNTED); each warp's store covers 64 bytes, so a row starting 16 bytes into a sector
    has 32 runs whose starts fall inside a sector, an aligned row only its end (byte 2,000)."""
    found, _, _ = _factors(4, 1024, rows=262144, cols=1000)
    assert "load" not in found
    parts = [1 if (r * 2000) % 32 == 0 else 32 for r in range(4)]
    expected = sum(63 + dram_granule.WRITE_PART_READS * p for p in parts) / 4 * 32 / 2000
    assert abs(found["store"] - expected) < 1e-12


def test_a_strided_columns_elements_are_a_sector_each_in_the_l1_and_l2_not_in_the_dram():
    """A column of a row-major matrix (flash-linear-attention's chunk_local_cumsum: `s + o_t * H`), each
    program 64 elements H apart. Its 4-byte elements were one 4,036-byte piece: the L1's and L2's
    sectors counted as the bytes used, the DRAM 1.58x them (helper h18a). Each element is a sector of
    the L1 and the L2 now; the DRAM moves about the bytes used, the neighbours in launch order filling
    the sectors (dram_granule.STRIDED_MEASURED: the H200 took 162 us at H = 1 to 8, 195 us at 16)."""
    file = str(Path(__file__).parent / "kernels" / "launch" / "strided.py")
    estimates = {}
    for h in (1, 16):
        c = compiled(file, "h200", constexprs=(f"H={h}", "MODE=0"), args=(f"T={(1 << 24) // h}",))
        grid = ((1 << 24) // 64,)
        traffic = program_traffic.evaluate(c.stages[Stage.TTIR], (*grid, 1, 1), launch_time._values(c))
        assert {dram_granule.element_stride(a) for a in traffic.accesses} == ({0} if h == 1 else {4 * h})
        assert not dram_granule.factors(c, traffic, 132 * 16)  # no narrow pieces for the DRAM
        estimate = launch_time.estimate(c, grid, "--grid")
        limits = {limit.name: limit for limit in estimate.limits}
        estimates[h] = estimate
        if h == 16:
            assert "8x the bytes used" in limits["L1"].said and estimate.bound == "L2"
            assert not any("pieces" in note for note in estimate.assumptions)
    assert estimates[1].dram_bytes == estimates[16].dram_bytes  # 64 MB each way
    measured = {h: dram_granule.STRIDED_MEASURED[h][0] for h in (1, 16)}
    assert all(0.9 < estimates[h].kernel_us / measured[h] < 1.2 for h in (1, 16)), estimates
