"""What narrow row segments cost the DRAM, on the GPU (issue 52: the launch model's DRAM bytes).

A 2-D bf16 tensor of ROWS x 4096 is read, written, or copied in tiles of BLOCK_M rows by BLOCK_N
columns (BLOCK_M x BLOCK_N = 2048 elements, 4 warps), each tile's rows BLOCK_N x 2 bytes wide (8 to
256 bytes), with the programs in two orders: the row tiles first (the next program reads the rows
below, the next column tile only ROWS / BLOCK_M programs later) and the column tiles first (the
next program reads the bytes beside). Printed: each case's do_bench median and its bandwidth for
the bytes used, so how much a narrow segment costs and whether neighbours read close in time (by
concurrently resident programs) get it back from the L2.

On the GPU machine:  python3 benchmarks/dram_granule.py
"""

from __future__ import annotations

import functools

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

ROWS, COLS = 65536, 4096
TILE = 2048


@triton.jit
def tiles_kernel(
    x_ptr, out_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    ROWS_FIRST: tl.constexpr, READ: tl.constexpr, WRITE: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    row_tiles = n_rows // BLOCK_M
    col_tiles = n_cols // BLOCK_N
    if ROWS_FIRST:
        tile_m, tile_n = pid % row_tiles, pid // row_tiles
    else:
        tile_m, tile_n = pid // col_tiles, pid % col_tiles
    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offsets = rows[:, None] * n_cols + cols[None, :]
    if READ:
        x = tl.load(x_ptr + offsets)
    else:
        x = (rows[:, None] + cols[None, :]).to(tl.bfloat16)
    if WRITE:
        tl.store(out_ptr + offsets, x + 1)
    else:
        total = tl.sum(tl.sum(x.to(tl.float32), axis=1), axis=0)
        tl.store(out_ptr + pid, total.to(tl.bfloat16), mask=total == 12345.0)


def time_us(x, out, block_n: int, rows_first: bool, read: bool, write: bool) -> float:
    """do_bench's median for one case, in microseconds, after a first launch (the compile)."""
    block_m = TILE // block_n
    grid = (ROWS // block_m * (COLS // block_n),)
    flags = dict(BLOCK_M=block_m, BLOCK_N=block_n, ROWS_FIRST=rows_first, READ=read, WRITE=write, num_warps=4)
    run = functools.partial(tiles_kernel[grid], x, out, ROWS, COLS, **flags)
    run()
    return do_bench(run, warmup=10, rep=40) * 1000


def main() -> None:
    x = torch.randn(ROWS, COLS, device="cuda", dtype=torch.bfloat16)
    out = torch.empty_like(x)
    print(f"{torch.cuda.get_device_name()}: {ROWS}x{COLS} bf16, tiles of {TILE} elements, 4 warps")
    print(f"{'what':<6} {'order':<10} {'segment':>8} {'us':>9} {'GB/s used':>10}")
    for read, write, what in ((True, True, "copy"), (True, False, "read"), (False, True, "write")):
        for rows_first in (True, False):
            for block_n in (4, 8, 16, 32, 64, 128):
                us = time_us(x, out, block_n, rows_first, read, write)
                used = ROWS * COLS * 2 * (int(read) + int(write))
                order = "rows" if rows_first else "columns"
                print(f"{what:<6} {order:<10} {block_n * 2:>6} B {us:>9.1f} {used / us / 1e3:>10.0f}")


if __name__ == "__main__":
    main()
