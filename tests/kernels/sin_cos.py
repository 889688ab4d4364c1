import triton
import triton.language as tl


@triton.jit
def sin_cos(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o, mask=o < n)
    tl.store(out_ptr + o, tl.sin(x) * tl.cos(x), mask=o < n)
