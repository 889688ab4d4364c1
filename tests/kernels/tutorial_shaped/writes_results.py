"""Writes a page into the working directory at module level, as a tutorial's benchmark does
(`run(save_path=".")` writes results.html even when the benchmark fails), then launches its kernel."""

import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def fill_kernel(out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(out_ptr + offsets, 1.0, mask=offsets < n_elements)


with open("results.html", "w") as page:
    page.write("<html><body>\n</body></html>\n")

out = torch.empty(4096, device=DEVICE)
fill_kernel[(4,)](out, 4096, BLOCK_SIZE=1024)
