"""A small torch.compile program, for `tritonscope trace` on a GPU: inductor writes Triton kernels."""

import torch


@torch.compile
def fused(x, y):
    return torch.relu(x) * y + 1.0


x = torch.randn(4096, 512, device="cuda")
y = torch.randn(4096, 512, device="cuda")
difference = (fused(x, y) - (torch.relu(x) * y + 1.0)).abs().max().item()
print(f"largest difference from eager: {difference:.1e}")  # fused multiply-add rounds differently
