"""torch.save and torch.load in a program on the simulated GPU: a checkpoint written, a checkpoint read.

torch.load under a fake tensor mode (the program's is always on) builds every storage on `meta`
without reading the file: the weights it returned had no values, and the next read stopped at an
internal `set_` (h19b). It reads the file here with the mode off, every storage on the host; what
was saved from a GPU, or what `map_location` sends to one, is moved to the simulated GPU after, as
torch would have restored it there. torch.save of device tensors could not pickle the fake mode: the
tensors it is given (in dicts, lists, tuples: a state_dict, an optimizer's) are read to the host
first (a read of their values: answered, or stopped, as any other), and saved as host tensors.
"""

from __future__ import annotations


def install(torch) -> None:
    from torch._subclasses.fake_tensor import FakeTensor, unset_fake_temporarily
    from torch.utils import _pytree as pytree

    original_load, original_save = torch.load, torch.save

    def load(f, map_location=None, *args, **kwargs):
        if map_location is not None and not isinstance(map_location, (str, torch.device)):
            with unset_fake_temporarily():  # a dict or a function: torch's own, on the host's devices
                return original_load(f, map_location, *args, **kwargs)
        from_gpu: set[int] = set()

        def on_the_host(storage, location):
            if str(location).startswith("cuda"):
                from_gpu.add(storage.data_ptr())
            return storage

        with unset_fake_temporarily():
            loaded = original_load(f, on_the_host, *args, **kwargs)
        wanted = str(map_location) if map_location is not None else None

        def placed(leaf):
            if not isinstance(leaf, torch.Tensor) or isinstance(leaf, FakeTensor):
                return leaf
            to_gpu = wanted.startswith("cuda") if wanted else leaf.untyped_storage().data_ptr() in from_gpu
            return leaf.to(wanted or "cuda") if to_gpu else leaf

        return pytree.tree_map(placed, loaded)

    def save(obj, f, *args, **kwargs):
        on_the_host = _mapped(obj, lambda leaf: leaf.cpu() if isinstance(leaf, FakeTensor) else leaf)
        return original_save(on_the_host, f, *args, **kwargs)

    torch.load, torch.save = load, save


def _mapped(obj, fn):
    """OBJ with FN applied to each leaf of its dicts, lists and tuples, in this module's own frames (not
    pytree's): a read's asking frame is then the program's `torch.save` line (stop.py skips these)."""
    if isinstance(obj, dict):
        try:
            mapped = type(obj)()
        except TypeError:  # a dict subclass that wants arguments: a plain dict of the same items
            mapped = {}
        mapped.update((key, _mapped(value, fn)) for key, value in obj.items())
        if hasattr(obj, "_metadata"):  # a state_dict's
            mapped._metadata = obj._metadata
        return mapped
    if isinstance(obj, (list, tuple)) and type(obj) in (list, tuple):
        return type(obj)(_mapped(item, fn) for item in obj)
    return fn(obj)
