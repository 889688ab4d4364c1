"""A model called as Hugging Face's are: its forward takes **kwargs, its many weights fill dynamo's guards,
compiled with dynamic=True over two sequence lengths (tests/test_recompiles_predict.py). A length of 1
is specialized (the 0/1 rule): `recompiles --shapes L=1..64` must predict that one entry."""

import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"


class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(24))

    def forward(self, **kwargs):
        x = kwargs["input_ids"]
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x.sum(-1)


model = Stack().to(dev)
compiled = torch.compile(model, dynamic=True)
for L in (17, 33):
    ids = torch.randint(0, 5, (2, L, 8)).to(dev).float()
    out = compiled(input_ids=ids)
print("out", tuple(out.shape))
