"""As 10-block-scaled-matmul's inputs: a check with torch.testing.assert_close, then inputs made by
Triton's MXFP4Tensor, whose conversion to float32 (up to Triton 3.8) branches on `mask.any()` and
indexes with a boolean mask (a result whose shape depends on the values); the kernel is launched
on what a boolean mask of the program's own kept, its count passed as an argument."""

import torch
import triton
import triton.language as tl
from triton.tools.mxfp import MXFP4Tensor

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, 2 * tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


def run(size: int) -> None:
    reference = torch.rand(size, device=DEVICE)
    torch.testing.assert_close(reference.clone(), reference)
    values = MXFP4Tensor(size=(size,), device=DEVICE).random().to(torch.float32)
    kept = values[values > 0]
    out = torch.empty_like(kept)
    scale_kernel[(triton.cdiv(size, 128),)](kept, out, kept.numel(), BLOCK=128)


if __name__ == "__main__":
    run(1000)
