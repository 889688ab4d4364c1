"""A 2-D copy in tiles of BLOCK_M rows by BLOCK_N columns, the row tiles first (program 1 copies the
rows below program 0's), as benchmarks/dram_granule.py times it on the GPU (tests/test_dram_granule.py)."""

import triton
import triton.language as tl


@triton.jit
def tiles_kernel(x_ptr, y_ptr, n_rows, n_cols, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    row_tiles = tl.cdiv(n_rows, BLOCK_M)
    rows = (tl.program_id(0) % row_tiles) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (tl.program_id(0) // row_tiles) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offsets = rows[:, None] * stride + cols[None, :]
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


tritonscope_defaults = {
    "x_ptr": "*bf16", "y_ptr": "*bf16", "n_rows": 65536, "n_cols": 4096, "stride": 4096, "BLOCK_M": 256,
    "BLOCK_N": 8,
}  # fmt: skip


def grid(meta):
    return (triton.cdiv(meta["n_rows"], meta["BLOCK_M"]) * triton.cdiv(meta["n_cols"], meta["BLOCK_N"]),)
