"""A 2-D kernel with a mask, for `tritonscope grid`: each program copies one tile of a matrix."""

import triton
import triton.language as tl


@triton.jit
def copy_tile(src_ptr, dst_ptr, rows, cols, stride, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    offsets = r[:, None] * stride + c[None, :]
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def grid(meta):
    return (triton.cdiv(meta["rows"], meta["BLOCK_R"]), triton.cdiv(meta["cols"], meta["BLOCK_C"]))
