"""A warmup of one size (tests/test_recompiles_predict.py): each row's stride equals its length,
512, in the one launch before the mark, so the warmup alone cannot tell the stride from a constant."""

import torch
import triton
import triton.language as tl

import tritonscope


@triton.jit
def scale_rows(x_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n)
    tl.store(x_ptr + row * stride + offs, x * 2, mask=offs < n)


def step(batch: int, seq: int) -> None:
    x = torch.randn(batch, seq, device="cuda")
    scale_rows[(batch,)](x, x.stride(0), seq, BLOCK=1024)


step(8, 512)
tritonscope.mark("warmup")
