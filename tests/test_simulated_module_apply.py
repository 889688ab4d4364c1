"""`module.cuda()` and `.to("cuda")` on the simulated GPU keep each parameter the same object, as
torch does on a GPU: a weight tied to another stays one tensor (a language model's input embedding
and output projection), and an optimizer made before the move holds the moved weights."""

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
