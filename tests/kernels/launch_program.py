"""A model step for `trace --target`: four kernels (one compiled twice) launched through Triton's JIT.
`--after` is the program after an edit: add_kernel's block size doubled, relu_kernel no longer run."""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import program_kernels as k  # noqa: E402

after = "--after" in sys.argv
n, rows, cols = 8192, 64, 128
x = torch.randn(n, device="cuda")
h = torch.randn(n, device="cuda", dtype=torch.float16)
out, h_out = torch.empty_like(x), torch.empty_like(h)
k.scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, 2.0, BLOCK=1024)
small = torch.randn(1000, device="cuda")  # a second compile of scale_kernel: another block, n not a multiple of 16
k.scale_kernel[(triton.cdiv(1000, 256),)](small, small, 1000, 0.5, BLOCK=256)
add_block = 512 if after else 256
k.add_kernel[(triton.cdiv(n, add_block),)](h, h, h_out, n, BLOCK=add_block)
table = torch.randn(rows, cols, device="cuda")
sums = torch.empty(rows, device="cuda")
k.row_sum_kernel[(rows,)](table, sums, table.stride(0), cols, BLOCK=128)
if not after:
    k.relu_kernel[(triton.cdiv(n, 1024),)](out, out, n, BLOCK=1024)
