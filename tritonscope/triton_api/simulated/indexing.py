"""Indexing fake CUDA tensors on a CPU-only torch build.

`tensor[...]` is done in C++ under a device guard for the tensor's device, and a CPU-only build
of torch has no CUDA guard (torch's FakeTensorMode installs a no-op one only on CUDA builds). On
such a build, indexing a tensor on the simulated GPU is rewritten here into the aten operators
C++ indexing would call (slice, select, unsqueeze, index, index_put_, copy_), which carry no
guard. On a CUDA build nothing here is installed.
"""

from __future__ import annotations


def _basic(tensor, index):
    """tensor[index] for ints, slices, None, Ellipsis, bools and tensors, as torch does it."""
    import torch

    items = list(index) if isinstance(index, tuple) else [index]
    used = sum(1 for i in items if i is not None and i is not Ellipsis and not isinstance(i, bool))
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at : at + 1] = [slice(None)] * (tensor.dim() - used)
    result, dim, advanced = tensor, 0, {}
    for item in items:
        if item is None:
            result = result.unsqueeze(dim)
            dim += 1
        elif isinstance(item, bool):
            result = result.unsqueeze(dim)
            dim += 1  # (rare) a boolean scalar index: kept as a size-1 axis
        elif isinstance(item, slice):
            start, stop, step = item.start, item.stop, item.step or 1
            result = torch.ops.aten.slice(result, dim, start, stop, step)
            dim += 1
        elif isinstance(item, torch.Tensor) or isinstance(item, (list, tuple)):
            advanced[dim] = item if isinstance(item, torch.Tensor) else torch.tensor(item, device=tensor.device)
            dim += 1
        else:
            result = torch.ops.aten.select(result, dim, int(item))
    if advanced:
        indices = [advanced.get(d) for d in range(max(advanced) + 1)]
        result = torch.ops.aten.index(result, indices)
    return result


def install(torch) -> None:
    original_get, original_set = torch.Tensor.__getitem__, torch.Tensor.__setitem__

    def needs_rewrite(tensor) -> bool:
        return tensor.device.type == "cuda" and "Fake" in type(tensor).__name__

    def getitem(self, index):
        if needs_rewrite(self):
            return _basic(self, index)
        return original_get(self, index)

    def setitem(self, index, value):
        if not needs_rewrite(self):
            return original_set(self, index, value)
        items = index if isinstance(index, tuple) else (index,)
        if any(isinstance(i, (torch.Tensor, list)) for i in items):
            return torch.ops.aten.index_put_(self, [i for i in items], torch.as_tensor(value, device=self.device))
        view = _basic(self, index)
        if isinstance(value, torch.Tensor):
            view.copy_(value)
        else:
            view.fill_(value)
        return None

    torch.Tensor.__getitem__, torch.Tensor.__setitem__ = getitem, setitem


def needed(torch) -> bool:
    """A CPU-only build: no CUDA device guard at all."""
    return torch.version.cuda is None and torch.version.hip is None
