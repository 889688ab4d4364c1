"""The small model of the tour's torch.compile chapter: a pre-norm MLP block, run once for inference."""

import torch


class Block(torch.nn.Module):
    def __init__(self, width: int = 256):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


model = torch.compile(Block().cuda().eval())
with torch.no_grad():
    model(torch.randn(8, 128, 256, device="cuda"))
