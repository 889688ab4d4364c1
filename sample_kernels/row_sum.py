"""Row sums in Triton: the compiler chooses the layout of the tile and of its sums."""

import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, ROWS: tl.constexpr, COLS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    # A ROWS x COLS tile; columns past the end read as 0.
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=cols[None, :] < n_cols, other=0.0)
    total = tl.sum(x, axis=1)
    tl.store(out_ptr + rows, total)


tritonscope_defaults = {"n_cols": 128, "ROWS": 32, "COLS": 128}
