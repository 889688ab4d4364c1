"""Every kind of read of a device value, printed without the device's name so that the run on the
simulated GPU (`trace --target`, values computed on the host) and the same program run on the CPU
(DEV=cpu, no simulated GPU) print the same lines. Numbers are rounded to 4 decimals: the compiled
graph's arithmetic may differ from eager's in the last bits."""

import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)


def shown(text: str) -> str:
    return text.replace(", device='cuda:0'", "")


x = torch.arange(12, dtype=torch.float32).reshape(3, 4).to(DEV)
y = (x * 2 + 1).sum(dim=1)
print("item", y[0].item(), "float", float(y[1]), "int", int(y[2]), "index", [10, 20, 30, 40][y.argmin()])
print("tolist", y.tolist(), "numpy", y.to("cpu").numpy().tolist(), "cpu", y.cpu().tolist())
host = torch.empty(3)
host.copy_(y)
print("copy", host.tolist())
print("branch", "taken" if (y > 40).any() else "not taken", f"format {y.sum():.2f}")
print("print", shown(repr(y)), shown(str(y.int())))
w = torch.randn(4, 4).to(DEV)  # host randomness, moved: the same numbers on both runs
z = x @ w
z.add_(1)
z[0].mul_(2)
print("in place", [round(v, 4) for v in z.sum(dim=0).tolist()])
mask = x > 5
print("nonzero", torch.nonzero(mask).tolist(), "boolean index", x[mask].tolist())
print("masked_select", torch.masked_select(x, x < 3).tolist())
ids = torch.tensor([0, 1, 1, 3, 3, 3], device=DEV)
print("bincount", torch.bincount(ids).tolist(), "unique", torch.unique(ids).tolist())
eos, pad = torch.tensor([2, 7], device=DEV), torch.tensor([7], device=DEV)
print("isin any", bool(torch.isin(eos, pad).any()), "allclose", torch.allclose(y, y + 1e-9), "equal", torch.equal(y, y))
torch._check_tensor_all(ids >= 0, lambda: "negative ids")
print("checked", "3 in ids", 3 in ids)
# an MoE combine: index_add_ of shapes the fake mode has not cached runs through its decomposition,
# whose operators were logged beside it (the sum added twice, the first time each shape came)
for n in (2, 2, 3):
    combined = torch.zeros(5, 2, device=DEV)
    combined.index_add_(0, torch.arange(n, device=DEV), torch.ones(n, 2, device=DEV))
    print("index_add_", n, combined.sum().item())
# a weight over the host-copy limit (4 MiB) moved with Module.to: its parameter's data is swapped for
# the device tensor, and its host record read as "changed afterwards" (every later read stopped)
linear = torch.nn.Linear(1024, 1024, bias=False).to(DEV)
print("module.to", round(linear(torch.ones(2, 1024, device=DEV)).sum().item(), 3))
# a scalar read inside a compiled graph (capture_scalar_outputs): Inductor's code reads its buffer
# with `.item()` for the unbacked size; it was answered 0 (a slice of 0 columns, a grid of 0)
torch._dynamo.config.capture_scalar_outputs = True


@torch.compile(fullgraph=True)
def first_columns(t, lengths):
    n = lengths.max().item()
    torch._check(n <= t.shape[1])
    return t[:, :n] * 2, n


columns, n = first_columns(x.reshape(2, -1), torch.tensor([3, 5], device=DEV))
print("unbacked item", n, tuple(columns.shape), round(columns.sum().item(), 4))
# copies made outside the operators: copy.deepcopy (an EMA model's, AveragedModel's) copies a tensor by
# its storage and its __dict__, `.data` wraps it anew, `.data =` swaps it (h19b: 1e+21, or the old value)
import copy  # noqa: E402

model = torch.nn.Linear(4, 4).to(DEV)
ema = torch.optim.swa_utils.AveragedModel(model)
ema.update_parameters(model)
print("deepcopy", round(copy.deepcopy(w).sum().item(), 4), round(ema.module.weight.sum().item(), 4))
model.weight.data = model.weight.data * 2
print(".data", round(model.weight.sum().item(), 4), round(model.weight.data.sum().item(), 4))
torch.nn.utils.vector_to_parameters(torch.ones(20, device=DEV), model.parameters())
print("vector_to_parameters", round(model(torch.ones(1, 4, device=DEV)).sum().item(), 4))
# a checkpoint written and read: torch.load under the fake mode built its storages on `meta` (the
# weights had no values), torch.save could not pickle the fake mode (h19b)
import os  # noqa: E402
import tempfile  # noqa: E402

with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "checkpoint.pt")
    torch.save({"model": model.state_dict(), "step": 3}, path)
    loaded = torch.load(path)
    on_device = torch.load(path, map_location=DEV)
    print("checkpoint", loaded["step"], round(loaded["model"]["weight"].sum().item(), 4))
    print("map_location", on_device["model"]["weight"].device.type == DEV.split(":")[0])
    model.load_state_dict(loaded["model"])
    print("load_state_dict", round(model.weight.sum().item(), 4))
# a generator on the device: a CPU build of torch has none ("Cannot get CUDA generator without
# ATen_cuda library", h19b); the host's draws, as every random draw here
seeded = torch.Generator(device=DEV)
seeded.manual_seed(1)
print("generator", round(torch.randn(4, device=DEV, generator=seeded).sum().item(), 4))
