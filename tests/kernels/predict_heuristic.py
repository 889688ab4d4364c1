"""A kernel whose block is its size's next power of two, computed by @triton.heuristics (not on the
launch line), warmed up at sizes that are powers of two: BLOCK equals n there, and is next_power_of_2(n)
past them (tests/test_recompiles_predict.py)."""

import sys

import torch
import triton
import triton.language as tl

import tritonscope


@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"])})
@triton.jit
def h_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)


x = torch.randn(8192, device="cuda")
y = torch.empty_like(x)
for seq in (128, 256):
    h_kernel[(1,)](x, y, seq)
tritonscope.mark("warmup")
for seq in map(int, sys.argv[1:]):
    h_kernel[(1,)](x, y, seq)
