"""Launches its kernel at module level and prints the result there, then defines one more kernel."""

import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731
    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out


torch.manual_seed(0)
size = 98432
x = torch.rand(size, device=DEVICE, dtype=torch.float16)
y = torch.rand(size, device=DEVICE, dtype=torch.float16)
out = add(x, y)
print(out)
print(f"max difference: {torch.max(torch.abs(out - (x + y)))}")


@triton.jit
def negate_kernel(x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(x_ptr + offsets, -tl.load(x_ptr + offsets, mask=mask), mask=mask)


negate_kernel[(1,)](out, 16, BLOCK_SIZE=16)
