"""An autotuned kernel whose configs ask the GPU at import, as attorch's do (num_stages by compute
capability), and a heuristic that asks it at launch, as attorch's allow_tf32(): with no GPU
visible it is imported, and its heuristic run, against a simulated one, each target's own."""

import torch
import triton
import triton.language as tl

STAGES = 2 if torch.cuda.get_device_capability()[0] < 8 else 4


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_stages=STAGES, num_warps=4)], key=["K"])
@triton.heuristics({"AMPERE": lambda args: torch.cuda.get_device_capability()[0] >= 8})  # asked at each launch
@triton.jit
def dot_rows(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, AMPERE: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK, BLOCK], dtype=tl.float32)
    for k in range(0, K, BLOCK):
        a = tl.load(a_ptr + offs[:, None] * K + k + offs[None, :])
        b = tl.load(b_ptr + (k + offs[:, None]) * BLOCK + offs[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
