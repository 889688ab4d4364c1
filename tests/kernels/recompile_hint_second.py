"""A row length not divisible by 16 launched first (n=1000), then one that is (n=1024): the later
variant has the hint and its 128-bit accesses, and `do_not_specialize` takes them away from it
(tests/test_recompiles.py)."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


for n in (1000, 1024):
    x = torch.randn(n, device="cuda")
    scale_rows[(1,)](x, torch.empty_like(x), n, BLOCK=1024)
