"""Asks for the device at module level, as Triton's tutorials do, before defining its kernels."""

import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
CAPABILITY = torch.cuda.get_device_capability()
TARGET = triton.runtime.driver.active.get_current_target()
SMS = torch.cuda.get_device_properties(DEVICE).multi_processor_count
WIDE = CAPABILITY[0] >= 9  # a choice the file makes from the device


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    block = 1024 if WIDE else 256
    scale_kernel[(triton.cdiv(n, block),)](x, out, n, factor, BLOCK=block)
    return out


if __name__ == "__main__":
    x = torch.rand(100_000, device=DEVICE)
    y = scale(x, 3.0)
    print("max error", (y - 3.0 * x).abs().max().item())
