"""A compiled training step that prints its loss every step, then GradScaler's finite check (the
second step's loss is infinite: the step is skipped and the scale halved), then a compiled function
whose results' shapes depend on the values (boolean indexing, bincount), on the device (the simulated
GPU under `trace --target`) or on the CPU (DEV=cpu, eagerly) for comparison."""

import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4)).to(DEV)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
step = torch.compile(model) if DEV == "cuda" else model
x, target = torch.randn(32, 8).to(DEV), torch.randn(32, 4).to(DEV)
for i in range(3):
    loss = torch.nn.functional.mse_loss(step(x), target)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"step {i} loss {loss.item():.4f}")
scaler = torch.amp.GradScaler(DEV, init_scale=2.0**16)
for i, factor in enumerate((1.0, float("inf"))):
    loss = torch.nn.functional.mse_loss(model(x), target) * factor
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    print(f"scaler step {i} scale {scaler.get_scale()}")
print("weight", round(model[0].weight.sum().item(), 4))
torch._dynamo.config.capture_dynamic_output_shape_ops = True


def pick(t):
    kept = t[t > 0]
    return kept * 2, torch.bincount((t > 0).int().flatten())


kept, counts = (torch.compile(pick) if DEV == "cuda" else pick)(x)
print("compiled shapes", tuple(kept.shape), round(kept.sum().item(), 4), counts.tolist())
torch._dynamo.config.capture_dynamic_output_shape_ops = False


def routed(t):  # a read inside a compiled function: graph breaks, and no frame of tritonscope's compiled
    counts = torch.bincount((t > 0).sum(1), minlength=9).tolist()
    return t * 2, counts


print("compiled read", (torch.compile(routed) if DEV == "cuda" else routed)(x)[1])
