"""A torch.compile'd function first called after the warmup's mark (h19b's gate.py): a GPU run compiles
it there, though it brings no Triton kernel (a matmul goes to cuBLAS)."""

import torch

import tritonscope


@torch.compile
def warm(x):
    return (x.sin() * 2).sum()


@torch.compile
def late(a, b):
    return a @ b


x = torch.randn(32, 32, device="cuda")
print(round(warm(x).item(), 4))
tritonscope.mark("warmup")
print(round(late(x, x).sum().item(), 4))
