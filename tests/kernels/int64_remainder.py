"""An int64 remainder by a run-time divisor: ptxas calls its remainder routine, placed after the
kernel's EXIT, once per 64-bit element a thread holds (BLOCK / 32 calls at one warp)."""

import triton
import triton.language as tl


@triton.jit
def remainder_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = (pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)) % N
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + pid * BLOCK + tl.arange(0, BLOCK), x)
