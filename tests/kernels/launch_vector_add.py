"""A program for `trace` on a GPU: launches the sample vector add five times through Triton's JIT."""

import sys

import torch

from tritonscope.core.samples import samples_dir

sys.path.insert(0, str(samples_dir()))
import vector_add  # noqa: E402

x, y = torch.randn(98432, device="cuda"), torch.randn(98432, device="cuda")
for _ in range(5):
    out = vector_add.launch(x, y, BLOCK_SIZE=1024)
assert torch.allclose(out, x + y)
print("launched add_kernel five times")
