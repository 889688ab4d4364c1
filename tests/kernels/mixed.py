"""A kernel file with a helper, an autotuned kernel, heuristics and untyped parameters."""

import triton
import triton.language as tl


@triton.jit
def load_scaled(src, offs, n, scale):
    return tl.load(src + offs, mask=offs < n, other=0.0) * scale


@triton.jit
def scale_kernel(in_ptr, out_ptr, row_stride, n, scale, BLOCK: tl.constexpr, DTYPE: tl.constexpr = tl.float16):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    row_start = in_ptr + row * row_stride
    x = load_scaled(row_start, offs, n, scale * 2.0)
    tl.store(out_ptr + row * row_stride + offs, x.to(DTYPE), mask=offs < n)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 128}, num_warps=4, num_stages=2),
        triton.Config({"BLOCK": 512}, num_warps=8, num_stages=3),
    ],
    key=["n"],
)
@triton.jit
def tuned_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


@triton.heuristics(values={"BLOCK": lambda args: triton.next_power_of_2(args["n"])})
@triton.jit
def row_kernel(x_ptr, n, eps: tl.float32, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(x_ptr + offs, x / (tl.sum(x, axis=0) + eps), mask=offs < n)
