"""A dropout-style kernel (flash-attention's layer norm): rows copied where a bool flag says, and a bool
mask written through a `*i1` pointer (Triton stores it through an i8 pointer: `tt.bitcast`)."""

import triton
import triton.language as tl


@triton.jit
def bool_mask_kernel(x_ptr, y_ptr, keep_ptr, n_cols, p, copy, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(keep_ptr + row * n_cols + cols, x > p, mask=cols < n_cols)
    if copy:
        tl.store(y_ptr + row * n_cols + cols, x, mask=cols < n_cols)


tritonscope_defaults = {
    "x_ptr": "*bf16", "y_ptr": "*bf16", "keep_ptr": "*i1", "n_cols": 4096, "p": 0.5, "copy": True, "BLOCK": 4096,
}  # fmt: skip


def grid(meta):
    return (4096,)
