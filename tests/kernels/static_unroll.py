"""A kernel whose IR grows with a constexpr: `tl.static_range(N)` unrolls its body N times."""

import triton
import triton.language as tl


@triton.jit
def unrolled_sum(x_ptr, y_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in tl.static_range(N):
        acc += tl.load(x_ptr + offs + i * BLOCK) * (i + 1)  # UNROLLED: N loads, N multiplies
    tl.store(y_ptr + offs, acc)
