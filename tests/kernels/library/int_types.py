"""Integer element types: an index gather, a cast to a dtype given as a constexpr, an annotated index pointer."""

import triton
import triton.language as tl


@triton.jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr = 128):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    idx = tl.load(idx_ptr + offsets, mask=mask, other=0)
    tl.store(out_ptr + offsets, tl.load(src_ptr + idx, mask=mask), mask=mask)


@triton.jit
def cast_kernel(x_ptr, out_ptr, n, INDEX_TY: tl.constexpr, BLOCK: tl.constexpr = 128):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x.to(INDEX_TY), mask=mask)


@triton.jit
def annotated_gather_kernel(src_ptr, idx_ptr: "*i32", out_ptr, n, BLOCK: tl.constexpr = 128):  # noqa: F722
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    idx = tl.load(idx_ptr + offsets, mask=mask, other=0)
    tl.store(out_ptr + offsets, tl.load(src_ptr + idx, mask=mask), mask=mask)
