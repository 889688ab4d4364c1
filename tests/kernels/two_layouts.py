"""A vector used beside two tiles of transposed layouts: one of its broadcasts needs a layout conversion
that no store follows (mamba selective_state_update's B and C); the sum's store needs another."""

import triton
import triton.language as tl


@triton.jit
def two_layouts(x_ptr, w_ptr, v_ptr, out_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i[:, None] * BLOCK + i[None, :])
    w = tl.load(w_ptr + i[None, :] * BLOCK + i[:, None])
    v = tl.load(v_ptr + i)
    xv = x * v[None, :]
    wv = w * v[:, None]
    tl.store(out_ptr + i[:, None] * BLOCK + i[None, :], xv + wv)


tritonscope_defaults = {"x_ptr": "*fp32", "w_ptr": "*fp32", "v_ptr": "*fp32", "out_ptr": "*fp32", "BLOCK": 64}
