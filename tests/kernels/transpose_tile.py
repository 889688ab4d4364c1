"""A tiled transpose: no loop, and all its shared memory the scratch of the layout conversion
between its load's and its store's layouts (16 KiB for a 64x64 fp32 tile)."""

import triton
import triton.language as tl


@triton.jit
def transpose_kernel(in_ptr, out_ptr, M, N, stride_im, stride_om, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(in_ptr + rm[:, None] * stride_im + rn[None, :], mask=mask)
    tl.store(out_ptr + rn[None, :] * stride_om + rm[:, None], tile, mask=mask)


tritonscope_defaults = {
    "in_ptr": "*fp32", "out_ptr": "*fp32", "M": 8192, "N": 8192, "stride_im": 8192, "stride_om": 8192,
    "BLOCK_M": 64, "BLOCK_N": 64,
}  # fmt: skip
