"""Where the simulated GPU follows torch's own rules: `module.cuda()` and `.to("cuda")` keep each
parameter the same object, as torch does on a GPU (a weight tied to another stays one tensor, as a
language model's input embedding and output projection, and an optimizer made before the move holds
the moved weights); cuDNN attention's largest head dimension is the running torch release's."""

from __future__ import annotations

import sys

import pytest
from cli_process import tritonscope

pytest.importorskip("torch")

# One decoder layer, its output projection tied to its embedding: 11 parameters, as a one-layer Llama.
TIED = """import torch
from torch import nn

class Layer(nn.Module):
    def __init__(self, vocab=64, width=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.q, self.k, self.v, self.o = (nn.Linear(width, width, bias=False) for _ in range(4))
        self.gate, self.up = nn.Linear(width, 64, bias=False), nn.Linear(width, 64, bias=False)
        self.down = nn.Linear(64, width, bias=False)
        self.norm1, self.norm2, self.final = (nn.LayerNorm(width, bias=False) for _ in range(3))
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, ids):
        x = self.embed(ids)
        h = self.norm1(x)
        x = x + self.o(torch.softmax(self.q(h) @ self.k(h).transpose(1, 2), -1) @ self.v(h))
        h = self.norm2(x)
        x = x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))
        return self.head(self.final(x))

model = Layer()
before = list(model.parameters())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
print("before", len(before))
moved = model.to("cuda")
print("after", len(list(model.parameters())), moved is model)
print("same objects", all(a is b for a, b in zip(before, model.parameters())))
print("tied", model.head.weight is model.embed.weight, type(model.embed.weight).__name__,
      model.embed.weight.device, isinstance(model.embed.weight, nn.Parameter))
logits = model(torch.randint(0, 64, (2, 8), device="cuda"))
logits.sum().backward()
optimizer.step()
print("gradient", model.embed.weight.grad.device, model.head.weight.grad is model.embed.weight.grad)
print("optimizer holds", optimizer.param_groups[0]["params"][0] is model.embed.weight)
model.half()
print("half", len(list(model.parameters())), model.head.weight.dtype, model.head.weight is before[0])
"""


def test_cuda_keeps_parameters_the_same_objects_and_tied_weights_tied(tmp_path):
    program = tmp_path / "tied.py"
    program.write_text(TIED)
    result = tritonscope("trace", "-t", "sm90", "-o", tmp_path / "out", "--", sys.executable, program)
    said = result.stdout.splitlines()
    assert said[:4] == [
        "before 11",
        "after 11 True",
        "same objects True",
        "tied True FakeTensor cuda:0 True",
    ], result.stdout
    assert said[4:] == ["gradient cuda:0 True", "optimizer holds True", "half 11 torch.float16 True"], result.stdout


@pytest.mark.parametrize(
    ("release", "capability", "cudnn", "dims", "limit"),
    [
        # torch 2.11 (the H100's: cuDNN 9.19): sm90 takes 256 from cuDNN 9.10 on (pytorch#161210)
        ((2, 11), (9, 0), 91900, (256, 256), 256),
        ((2, 11), (9, 0), 90800, (256, 256), 128),
        ((2, 11), (10, 0), 91900, (256, 256), 128),
        ((2, 11), (10, 0), 91900, (192, 128), 192),
        # torch 2.13: 256 on sm90 and sm10x only with cuDNN newer than 9.22 (pytorch#185553)
        ((2, 13), (9, 0), 91900, (256, 256), 128),
        ((2, 13), (9, 0), 92400, (256, 256), 256),
        ((2, 13), (10, 0), 92400, (256, 256), 256),
        ((2, 13), (10, 7), 92400, (256, 256), 128),
        ((2, 13), (9, 0), 91900, (192, 128), 192),
        ((2, 13), (8, 0), 92400, (256, 256), 128),
    ],
)
def test_cudnn_attentions_largest_head_dimension_is_the_releases_rule(release, capability, cudnn, dims, limit):
    """The H100 with torch 2.11 runs attention of one head of 256 through cuDNN (the simulated GPU
    picked flash attention with 2.13's rule applied to 2.11)."""
    from tritonscope.triton_api.simulated.sdpa import cudnn_head_dim_limit

    assert cudnn_head_dim_limit(release, capability, cudnn, *dims) == limit
