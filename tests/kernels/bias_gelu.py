"""A fused bias and tanh-approximated GELU over a 2-D tile (a kernel author's, h24a): the bias is a
vector of BLOCK_N elements per program, too few for 128 threads to load 128 bits each."""

import triton
import triton.language as tl


@triton.jit
def gelu_bias_kernel(x_ptr, b_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = rn < N
    mask = (rm[:, None] < M) & col_mask[None, :]
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :], mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + rn, mask=col_mask, other=0.0).to(tl.float32)
    z = x + b[None, :]
    inner = 0.7978845608028654 * (z + 0.044715 * z * z * z)
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    y = 0.5 * z * (1.0 + t)
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :], y.to(y_ptr.dtype.element_ty), mask=mask)


tritonscope_defaults = {
    "x_ptr": "*fp16", "b_ptr": "*fp16", "y_ptr": "*fp16",
    "M": 4096, "N": 1024, "stride_xm": 1024, "stride_ym": 1024, "BLOCK_M": 32, "BLOCK_N": 128,
}  # fmt: skip
