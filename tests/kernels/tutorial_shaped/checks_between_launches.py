"""Launches one kernel at module level, checks its result on the device (as Triton's low-memory
dropout and grouped GEMM tutorials do), then launches another in a block guarded as Triton's Gluon
tutorials guard theirs (`if __name__ == "__main__" and _enabled(...)`), after another read."""

import sys

import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2 * tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def seeded_noise_kernel(out_ptr, n, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs), mask=offs < n)


x = torch.randn(4000, device=DEVICE)
doubled = torch.empty_like(x)
double_kernel[(4,)](x, doubled, x.numel(), BLOCK=1024)
assert torch.allclose(doubled, 2 * x)

if __name__ == "__main__" and len(sys.argv) == 1:
    print(doubled.tolist()[:4])
    noise = torch.empty(3000, device=DEVICE)
    seeded_noise_kernel[(3,)](noise, noise.numel(), 123, BLOCK=1024)
    print(noise)
