"""A Gluon kernel shaped like Triton's Gluon tutorials: the layout is chosen in Python from the
device, passed as a constexpr, and the kernel is launched in __main__."""

import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@gluon.jit
def row_max_kernel(x_ptr, out_ptr, n_rows, n_cols, ROWS: gl.constexpr, COLS: gl.constexpr, layout: gl.constexpr):
    rows = gl.program_id(0) * ROWS + gl.arange(0, ROWS, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, COLS, layout=gl.SliceLayout(0, layout))
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = gl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=float("-inf"))
    gl.store(out_ptr + rows, gl.max(x, axis=1), mask=rows < n_rows)


def row_max(x: torch.Tensor, rows_per_program: int = 16) -> torch.Tensor:
    n_rows, n_cols = x.shape
    cols = triton.next_power_of_2(n_cols)
    warps = 4
    # Each thread holds 8 contiguous values of a row (16 bytes of fp16); a warp spans whole rows.
    per_row = min(32, max(1, cols // 8))
    layout = gl.BlockedLayout([1, 8], [32 // per_row, per_row], [warps, 1], [1, 0])
    out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    row_max_kernel[(triton.cdiv(n_rows, rows_per_program),)](
        x, out, n_rows, n_cols, rows_per_program, cols, layout, num_warps=warps
    )
    return out


if __name__ == "__main__":
    x = torch.randn(4096, 1000, device=DEVICE, dtype=torch.float16)
    y = row_max(x)
    torch.testing.assert_close(y, x.max(dim=1).values)
    print("ok")
