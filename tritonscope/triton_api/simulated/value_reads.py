"""Reads that reach the program's fake mode as operators (stop.py has those of Tensor's methods): a
copy of a device tensor into a host tensor, an operator whose result's shape depends on the values
(`nonzero`, `x[mask]`, `masked_select`, `bincount`, `unique`), and a scalar torch's own C++ code
reads (`_local_scalar_dense`, `equal`). The program's own (or a library's it called) is answered
as any read (`--values`); torch's compiler's raises as a fake tensor does."""

from __future__ import annotations

from . import reads
from .pending_results import pending as pending_result
from .stop import _answered, _asking_past_dispatch, _read
from .where import located


def _copy_to_the_host(folders: tuple[str, ...]):
    """`host.copy_(device)`: the program's own copy is a read; torch's own (Inductor keeps host copies
    of what a benchmark overwrites) leaves the host tensor as it was."""

    def copy(host, device):
        frame = _asking_past_dispatch(folders)
        if frame is None or reads.inside_an_answer():
            return host
        (value,) = _answered(frame, "a copy of a device tensor into a host tensor (.copy_())", [device])
        return host.copy_(value)

    return copy


def _moved_to_the_host(folders: tuple[str, ...]):
    """`device.to("cpu")` (`_to_copy` to the host): the program's own is a read, answered with a host
    tensor; torch's own gets None (the fake mode's answer)."""

    def moved(device, kwargs):
        frame = _asking_past_dispatch(folders)
        if frame is None or reads.inside_an_answer():
            return None
        (value,) = _answered(frame, ".to('cpu') (a copy of a device tensor to the host)", [device])
        return value.to(**{k: v for k, v in kwargs.items() if k in ("dtype", "memory_format")}).clone()

    return moved


def _on_values(folders: tuple[str, ...], asked: str, refused):
    """An operator answered from its arguments' values: run on the host, each device tensor standing
    for its value (under --values N, for a tensor holding N), its tensor results made device tensors
    again, each holding its host result as its value. REFUSED(func) is raised where torch's compiler
    asked (a fake tensor's own answer)."""

    def run(mode, func, args, kwargs):
        import torch
        from torch._subclasses.fake_tensor import FakeTensor, unset_fake_temporarily
        from torch.utils import _pytree as pytree

        from .host_values import KEY, Token

        pending = pending_result(func.overloadpacket.__name__)
        if pending is not None:  # a compiled graph's own call: the host run of its graph made it
            return pytree.tree_map(lambda leaf: _faked(mode, leaf, args), pending)
        frame = _asking_past_dispatch(folders)
        if frame is None or reads.inside_an_answer():
            raise refused(func)
        fakes = [t for t in pytree.tree_leaves((args, kwargs)) if isinstance(t, FakeTensor)]
        question = asked.format(func.overloadpacket.__name__)
        answered, shown, given = _read(frame, question, fakes)
        values = dict(zip(map(id, fakes), answered, strict=True))

        def faked(leaf):
            if not isinstance(leaf, torch.Tensor):
                return leaf
            meta = torch.empty_strided(leaf.shape, leaf.stride(), dtype=leaf.dtype, device="meta")
            fake = FakeTensor(mode, meta, fakes[0].device)
            token = fake.__dict__[KEY] = Token()
            token.value = leaf
            return fake

        with unset_fake_temporarily():
            host_args, host_kwargs = pytree.tree_map(lambda t: values.get(id(t), t), (args, kwargs))
            result = func(*host_args, **host_kwargs)
        made = [reads.made(t) for t in pytree.tree_leaves(result) if isinstance(t, torch.Tensor)]
        reads.record(*located(frame, question), shown, given, made=made[0] if len(made) == 1 else made)
        return pytree.tree_map(faked, result)

    return run


def _faked(mode, leaf, args):
    """A host result as a device tensor of the program's mode, holding it as its value."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor
    from torch.utils import _pytree as pytree

    from .host_values import KEY, Token

    if not isinstance(leaf, torch.Tensor):
        return leaf
    device = next((t.device for t in pytree.tree_leaves(args) if isinstance(t, FakeTensor)), torch.device("cuda", 0))
    meta = torch.empty_strided(leaf.shape, leaf.stride(), dtype=leaf.dtype, device="meta")
    fake = FakeTensor(mode, meta, device)
    token = fake.__dict__[KEY] = Token()
    token.value = leaf
    return fake


def install(folders: tuple[str, ...]) -> None:
    from torch._subclasses.fake_tensor import DataDependentOutputException, DynamicOutputShapeException

    from . import torch_cuda

    torch_cuda.HOST_COPY[:] = [_copy_to_the_host(folders), _moved_to_the_host(folders)]
    shaped = "aten.{} (a result whose shape depends on the values)"
    torch_cuda.SHAPED_BY_VALUES[:] = [_on_values(folders, shaped, DynamicOutputShapeException)]
    scalar = "aten.{} (a value torch reads)"
    torch_cuda.SCALAR_READ[:] = [_on_values(folders, scalar, DataDependentOutputException)]
