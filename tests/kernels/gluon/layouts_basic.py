"""Gluon test kernels: blocked and sliced layouts (any target with 32-thread warps or 64)."""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def row_sum(x_ptr, out_ptr, n_cols, ROWS: gl.constexpr, COLS: gl.constexpr):
    # One warp's 32 threads cover 4 rows x 8 column groups; each thread holds 4 columns.
    rows_cols: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [gl.num_warps(), 1], [1, 0])
    pid = gl.program_id(0)
    rows = pid * ROWS + gl.arange(0, ROWS, layout=gl.SliceLayout(1, rows_cols))
    cols = gl.arange(0, COLS, layout=gl.SliceLayout(0, rows_cols))
    offsets = rows[:, None] * n_cols + cols[None, :]
    mask = cols[None, :] < n_cols
    x = gl.load(x_ptr + offsets, mask=mask, other=0.0)
    total = gl.sum(x, axis=1)
    gl.store(out_ptr + rows, total)


@gluon.jit
def _scale(x, factor):
    return x * factor


@gluon.jit
def scaled_copy(src_ptr, dst_ptr, n, factor, BLOCK: gl.constexpr):
    flat: gl.constexpr = gl.BlockedLayout([4], [32], [gl.num_warps()], [0])
    offsets = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=flat)
    mask = offsets < n
    x = gl.load(src_ptr + offsets, mask=mask)
    gl.store(dst_ptr + offsets, _scale(x, factor), mask=mask)


@gluon.jit
def copy_in_layout(src_ptr, dst_ptr, n, BLOCK: gl.constexpr, layout: gl.constexpr):
    # The caller picks the layout: a constexpr Gluon layout object.
    offsets = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offsets < n
    gl.store(dst_ptr + offsets, gl.load(src_ptr + offsets, mask=mask), mask=mask)
