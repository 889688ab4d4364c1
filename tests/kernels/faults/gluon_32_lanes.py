"""A Gluon kernel whose layout spreads a warp over 32 threads (4 x 8): right for NVIDIA and RDNA,
wrong for CDNA's 64-lane wavefronts (gfx90a, gfx942, gfx950)."""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def row_sum(x_ptr, out_ptr, n_cols, ROWS: gl.constexpr, COLS: gl.constexpr):
    rows_cols: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [gl.num_warps(), 1], [1, 0])
    pid = gl.program_id(0)
    rows = pid * ROWS + gl.arange(0, ROWS, layout=gl.SliceLayout(1, rows_cols))
    cols = gl.arange(0, COLS, layout=gl.SliceLayout(0, rows_cols))
    x = gl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=cols[None, :] < n_cols, other=0.0)
    gl.store(out_ptr + rows, gl.sum(x, axis=1))


tritonscope_defaults = {"ROWS": 16, "COLS": 32}
