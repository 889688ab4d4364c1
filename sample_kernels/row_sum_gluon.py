"""Row sums in Gluon: the same reduction as row_sum, with the layouts written in the kernel (for
NVIDIA's 32-thread warps: a Gluon layout names its threads per warp)."""

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, ROWS: gl.constexpr, COLS: gl.constexpr):
    # Each thread holds 4 consecutive columns; a warp covers 2 rows of 64; the warps stack rows.
    tile: gl.constexpr = gl.BlockedLayout([1, 4], [2, 16], [gl.num_warps(), 1], [1, 0])
    rows = gl.program_id(0) * ROWS + gl.arange(0, ROWS, layout=gl.SliceLayout(1, tile))
    cols = gl.arange(0, COLS, layout=gl.SliceLayout(0, tile))
    # A ROWS x COLS tile; columns past the end read as 0.
    x = gl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=cols[None, :] < n_cols, other=0.0)
    total = gl.sum(x, axis=1)  # in SliceLayout(1, tile): each row's sum where its row was
    gl.store(out_ptr + rows, total)


tritonscope_defaults = {"n_cols": 128, "ROWS": 32, "COLS": 128, "n_rows": 4096}


def grid(meta):
    return (triton.cdiv(meta["n_rows"], meta["ROWS"]),)


def make_inputs(size=2**16, device="cuda"):
    """A (size, 100) matrix: rows shorter than COLS, so the mask reads past their end as 0."""
    import torch

    return (torch.randn(size, 100, device=device),)


def launch(x, ROWS=32, COLS=128):
    import torch

    n_rows = x.shape[0]
    out = torch.empty(triton.cdiv(n_rows, ROWS) * ROWS, device=x.device)
    padded = torch.zeros(out.numel(), x.shape[1], device=x.device)  # whole tiles of rows: no row mask
    padded[:n_rows] = x
    row_sum_kernel[(triton.cdiv(n_rows, ROWS),)](padded, out, x.shape[1], ROWS=ROWS, COLS=COLS)
    return out[:n_rows]


def reference(x):
    return x.sum(dim=1)


def torch_op(x):
    return x.sum(dim=1)


def work(x):
    return {"flops": x.numel(), "bytes": (x.numel() + x.shape[0]) * x.element_size()}
