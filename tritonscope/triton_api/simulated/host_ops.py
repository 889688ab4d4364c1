"""One logged operator run on the host (host_values.py): the device named in its arguments becomes
the host, random numbers come from a generator of the simulated GPU's own (seeded as the program
seeds CUDA's, so that drawing them leaves the program's host generator as it would be on a GPU),
and the operators that exist only for CUDA (fused attention, cuDNN's batch norm) are computed by
their definitions (attention.py)."""

from __future__ import annotations

from . import attention, near_ties
from .tokens import Blank, HostArg, Token, Unknown

CUDA_DEFAULT_SEED = 67280421310721  # the seed torch's CUDA generator starts with, as the CPU's does
_generator: list = []


def device_generator():
    """The host generator standing in for the simulated GPU's (made at the first draw)."""
    import torch

    if not _generator:
        _generator.append(torch.Generator().manual_seed(CUDA_DEFAULT_SEED))
    return _generator[0]


class Seed:
    """`torch.manual_seed(s)` / `torch.cuda.manual_seed(s)` in the log: the draws after it start there."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __call__(self, args, kwargs):
        device_generator().manual_seed(self.seed)


def blank_like(tensor) -> Blank:
    return Blank(tensor)


def _on_the_host(leaf):
    import torch

    if isinstance(leaf, torch.device) and leaf.type != "cpu":
        return torch.device("cpu")
    if isinstance(leaf, str) and leaf.startswith("cuda"):
        return "cpu"
    return leaf


class Eager:
    """An ATen operator, run on the host."""

    __slots__ = ("func",)

    def __init__(self, func) -> None:
        self.func = func

    def __call__(self, args, kwargs):
        import torch
        from torch.utils import _pytree as pytree

        args, kwargs = pytree.tree_map(_on_the_host, (args, kwargs))
        if kwargs.get("pin_memory"):
            kwargs["pin_memory"] = False
        name = self.func.overloadpacket.__name__
        run = attention.SUBSTITUTES.get(name) or _HOST_KERNELS.get(name) or self.func
        if torch.Tag.nondeterministic_seeded in self.func.tags:
            return drawing(run, args, kwargs)
        result = run(*args, **kwargs)
        near_ties.check(self.func, args, kwargs)
        return result


def laid_out_in_order(result, hinted: list[int], inputs: set):
    """RESULT laid out with its dimensions in the order HINTED strides give them (outermost first):
    the device's layout where its strides are symbolic, for this call's sizes."""
    import torch

    if not isinstance(result, torch.Tensor) or len(hinted) != result.dim() or result.numel() <= 1:
        return result
    if _storage(result) in inputs:
        return result
    order = sorted(range(result.dim()), key=lambda d: (-hinted[d], d))
    fixed = torch.empty_permuted(result.shape, order, dtype=result.dtype)
    if fixed.stride() == result.stride():
        return result
    return fixed.copy_(result)


def _histc(input, bins=100, min=0, max=0):  # noqa: A002 - torch's own argument names
    """CUDA's histc takes integer tensors (an MoE router counts its experts' tokens so); the host's
    takes floating ones only: the same counts, in the input's dtype as CUDA gives them."""
    import torch

    counted = input if input.is_floating_point() else input.double()
    return torch.histc(counted, bins, min, max).to(input.dtype)


# Operators whose host kernel takes less than CUDA's: run so that they give CUDA's result.
_HOST_KERNELS = {"histc": _histc}


def drawing(run, args, kwargs):
    """RUN with the simulated GPU's generator as the host's default, which is then put back."""
    import torch

    saved = torch.get_rng_state()
    torch.set_rng_state(device_generator().get_state())
    try:
        return run(*args, **kwargs)
    finally:
        device_generator().set_state(torch.get_rng_state())
        torch.set_rng_state(saved)


def replay(entry) -> None:
    """ENTRY run on the host: its results' tokens get their values, or say why they have none."""
    from torch.utils import _pytree as pytree

    def value(leaf):
        if isinstance(leaf, Token):
            if leaf.unknown is not None:
                raise Unknown(leaf.unknown)
            if leaf.value is None:
                raise Unknown("its value was never computed")
            if isinstance(leaf.value, Blank):
                leaf.value = leaf.value.make()
            return leaf.value
        return leaf.get() if isinstance(leaf, HostArg) else leaf

    try:
        args, kwargs = pytree.tree_map(value, (entry.args, entry.kwargs))
        results = pytree.tree_leaves(entry.run(args, kwargs))
    except Exception as exc:  # noqa: BLE001 - any failure leaves the results unknown, with why
        why = exc.args[0] if isinstance(exc, Unknown) else _failure(entry, exc)
        for token in [*entry.outs, *entry.writes]:
            if token is not None:
                token.value, token.unknown = None, why
        return
    inputs = {_storage(t) for t in pytree.tree_leaves((args, kwargs)) if hasattr(t, "untyped_storage")}
    for token, result in zip(entry.outs, results, strict=False):
        if token is not None:
            token.value = laid_out(result, token.stride, inputs)


def _storage(tensor) -> int:
    return tensor.untyped_storage().data_ptr()


def laid_out(result, stride, inputs: set):
    """RESULT with the device tensor's strides (a host kernel may lay out its result otherwise than the
    GPU's, and a later `view` relies on the GPU's), unless it is a view of an input."""
    import torch

    if stride is None or not isinstance(result, torch.Tensor) or tuple(result.stride()) == tuple(stride):
        return result
    if result.numel() <= 1 or _storage(result) in inputs or len(stride) != result.dim():
        return result
    fixed = torch.empty_strided(result.shape, stride, dtype=result.dtype)
    return fixed.copy_(result)


def _failure(entry, exc: Exception) -> str:
    name = getattr(getattr(entry.run, "func", None), "__name__", None) or type(entry.run).__name__
    kernel = getattr(entry.run, "name", None)  # an InterpretedLaunch: the Triton kernel, which a user knows
    if kernel and isinstance(kernel, str):
        name = f"the Triton kernel {kernel}, on Triton's interpreter,"
    text = " ".join(str(exc).split())[:160]
    return f"{name} could not run on the host ({type(exc).__name__}: {text})"
