"""A matmul loop that also loads one element a step (a gate, fla's b_g_last): its load is a scalar's, which
no block size widens (tests/test_explain.py)."""

import triton
import triton.language as tl


@triton.jit
def scaled_dot(a_ptr, b_ptr, g_ptr, c_ptr, K, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K, BLOCK):
        a = tl.load(a_ptr + offs[:, None] * K + k + offs[None, :])
        b = tl.load(b_ptr + (k + offs[:, None]) * BLOCK + offs[None, :])
        g = tl.load(g_ptr + k + tl.arange(0, 1))
        acc = acc * tl.exp(g)[:, None] + tl.dot(a, b)
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
