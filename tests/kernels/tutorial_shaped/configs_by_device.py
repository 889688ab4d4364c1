"""Shaped like Triton's tutorials 03 and 06: the autotune configs are chosen by asking the active
driver for its target when the decorator runs, and the file's own run launches the kernel."""

import torch
import triton
import triton.language as tl


def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


def autotune_configs():
    block = 256 if is_cuda() else 128
    return [triton.Config({"BLOCK": block}, num_warps=4)]


@triton.autotune(configs=autotune_configs(), key=["n"])
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2, mask=mask)


if __name__ == "__main__":
    x = torch.randn(4096, device="cuda")
    out = torch.empty_like(x)
    scale_kernel[lambda meta: (triton.cdiv(4096, meta["BLOCK"]),)](x, out, 4096)
