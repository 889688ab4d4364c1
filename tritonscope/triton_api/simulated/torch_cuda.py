"""torch's side of the simulated GPU: fake CUDA tensors and `torch.cuda` answering as the target.

One global FakeTensorMode makes every tensor on the device a FakeTensor (shapes, strides, dtypes as
torch's own ops make them; no memory); tensors on the host stay real. The `torch.cuda` queries a
program, torch.compile and Triton make are answered from the device description; work that would
need the GPU (synchronize, streams, events, seeds) does nothing.
"""

from __future__ import annotations

import types
import warnings

from . import allocator
from .where import say_stand_in_once

_mode: list = []


def properties(device: dict) -> types.SimpleNamespace:
    """What torch.cuda.get_device_properties returns on the real GPU, for the fields programs read."""
    major, minor = device["capability"]
    fields = {
        "name": device["name"],
        "major": major,
        "minor": minor,
        "total_memory": device["total_memory"],
        "multi_processor_count": device["multiprocessor_count"],
        "L2_cache_size": device["l2_cache_size"],
        "shared_memory_per_block": 49152,
        "shared_memory_per_block_optin": device["shared_memory_per_block_optin"],
        "shared_memory_per_multiprocessor": device["shared_memory_per_multiprocessor"],
        "max_threads_per_multi_processor": device["max_threads_per_multiprocessor"],
        "max_threads_per_block": 1024,
        "regs_per_multiprocessor": 65536,
        "warp_size": device["warp_size"],
        "is_integrated": 0,
        "is_multi_gpu_board": 0,
        "gcnArchName": device["arch"] if device["backend"] == "hip" else "NVIDIA",
        "uuid": "00000000-0000-0000-0000-000000000000",
        "clock_rate": device.get("clock_rate_khz", 1980000),
        "memory_clock_rate": device.get("memory_clock_rate_khz", 2619000),
        "memory_bus_width": device.get("memory_bus_width", 5120),
    }
    namespace = types.SimpleNamespace(**fields)
    return namespace


class _Stream:
    """A stream or event that orders nothing: nothing runs on a simulated GPU."""

    cuda_stream = 0
    device = None

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return lambda *args, **kwargs: None

    def query(self) -> bool:
        return True

    def elapsed_time(self, other) -> float:
        """A stand-in (nothing ran): said once, so that a timing loop's figure is not read as measured."""
        say_stand_in_once("elapsed_time", "Event.elapsed_time on the simulated GPU gives 1.0 ms, a stand-in")
        return 1.0

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None


class _Graph:
    """torch.cuda.CUDAGraph on a simulated GPU. Capturing runs its body once, as on a GPU, where each
    launch in it goes through Triton's launcher (and is recorded) once; a replay launches nothing, as a
    replay on a GPU calls no Python, but its operators give their values again from the inputs as they
    are then (host values: the static buffers refilled). Triton's do_bench_cudagraph and a program's
    own graphs so work."""

    def __init__(self, *args, **kwargs):
        self._entries: list = []  # host_values' log entries of the capture

    def capture_begin(self, *args, **kwargs) -> None:
        from .host_values import LOG

        _CAPTURING.append(self)
        self._entries = []
        LOG.capturing.append(self._entries)

    def capture_end(self) -> None:
        from .host_values import LOG

        if self in _CAPTURING:
            _CAPTURING.remove(self)
        LOG.capturing[:] = [e for e in LOG.capturing if e is not self._entries]

    def replay(self) -> None:
        from .host_values import LOG

        LOG.replayed(self._entries)

    def reset(self) -> None:
        return None

    def pool(self) -> tuple[int, int]:
        return (0, 0)

    def __getattr__(self, name):  # enable_debug_mode, debug_dump, register_generator_state...
        return lambda *args, **kwargs: None


class _GraphCapture:
    """`with torch.cuda.graph(g):` on a simulated GPU: the body runs while the stream is capturing."""

    def __init__(self, cuda_graph, *args, **kwargs):
        self.cuda_graph = cuda_graph

    def __enter__(self) -> None:
        self.cuda_graph.capture_begin()

    def __exit__(self, *exc) -> None:
        self.cuda_graph.capture_end()


_CAPTURING: list = []  # the graphs being captured now


def _answers(device: dict, torch) -> dict:
    props = properties(device)
    cuda_device = torch.device("cuda", 0)
    stream = _Stream()
    stream.device = cuda_device
    return {
        "is_available": lambda: True,
        "is_current_stream_capturing": lambda: bool(_CAPTURING),
        "device_count": lambda: 1,
        "current_device": lambda: 0,
        "set_device": lambda *a, **k: None,
        "get_device_capability": lambda *a, **k: tuple(device["capability"]),
        "get_device_properties": lambda *a, **k: props,
        "_get_device_properties": lambda *a, **k: props,  # what the original (bound early elsewhere) calls
        "get_device_name": lambda *a, **k: device["name"],
        "synchronize": lambda *a, **k: None,
        "_lazy_init": lambda: None,
        "is_initialized": lambda: True,
        "_is_compiled": lambda: True,
        "current_stream": lambda *a, **k: stream,
        "default_stream": lambda *a, **k: stream,
        "set_stream": lambda *a, **k: None,
        **allocator.memory_answers(device),
        "get_rng_state": lambda *a, **k: torch.zeros(16, dtype=torch.uint8, device="cpu"),
        "set_rng_state": lambda *a, **k: None,
        "manual_seed": lambda *a, **k: None,
        "manual_seed_all": lambda *a, **k: None,
        "is_bf16_supported": lambda *a, **k: device["capability"][0] >= 8,
        "get_arch_list": lambda: [f"sm_{device['arch']}"] if device["backend"] == "cuda" else [],
        "_exchange_device": lambda *a: 0,
        "_maybe_exchange_device": lambda *a: 0,
        "_set_stream_by_id": lambda *a, **k: None,
        "Stream": _Stream,
        "Event": _Stream,
        "stream": lambda *a, **k: _Stream(),
        "CUDAGraph": _Graph,
        "graph": _GraphCapture,
        "graph_pool_handle": lambda: (0, 0),  # a memory pool graphs share (vLLM's); none here
    }


def _patch_cuda(device: dict, torch) -> None:
    for name, answer in _answers(device, torch).items():
        setattr(torch.cuda, name, answer)
    for name, answer in allocator.memory_answers(
        device
    ).items():  # the module they are defined in, called by its name too
        setattr(torch.cuda.memory, name, answer)
    for name in ("CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing"):  # named there too
        setattr(torch.cuda.graphs, name, getattr(torch.cuda, name))
    torch.cuda.device = _Stream  # `with torch.cuda.device(i):` selects nothing
    torch.cuda._DeviceGuard = _Stream
    torch._C._cuda_getDevice = lambda: 0
    torch._C._cuda_getDeviceCount = lambda: 1
    torch._C._cuda_getCurrentRawStream = lambda *a: 0
    torch._C._cuda_setDevice = lambda *a: None
    if device["backend"] == "hip" and torch.version.hip is None:
        pass  # torch.compile decides CUDA or ROCm from torch's build: simulated.amd_notice says so


_INTERFACE = {  # torch._dynamo's CudaInterface binds these torch.cuda functions when it is imported
    "current_device": "current_device",
    "set_device": "set_device",
    "device_count": "device_count",
    "stream": "stream",
    "current_stream": "current_stream",
    "set_stream": "set_stream",
    "_set_stream_by_id": "_set_stream_by_id",
    "synchronize": "synchronize",
    "get_device_properties": "get_device_properties",
    "exchange_device": "_exchange_device",
    "maybe_exchange_device": "_maybe_exchange_device",
    "memory_allocated": "memory_allocated",
    "is_bf16_supported": "is_bf16_supported",
}


def _patch_device_interface(torch) -> None:
    """Rebind torch._dynamo's CudaInterface to the answers (it may be imported already)."""
    from torch._dynamo import device_interface

    interface = device_interface.CudaInterface
    for name, cuda_name in _INTERFACE.items():
        if hasattr(interface, name):
            setattr(interface, name, staticmethod(getattr(torch.cuda, cuda_name)))
    interface.get_raw_stream = staticmethod(lambda *a: 0)
    device_interface.get_cuda_stream = lambda *a: 0


def _patch_accelerator(torch) -> None:
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is None:
        return
    answers = {
        "is_available": lambda *a, **k: True,
        "current_accelerator": lambda *a, **k: torch.device("cuda"),
        "device_count": lambda *a, **k: 1,
        "current_device_index": lambda *a, **k: 0,
        "current_device_idx": lambda *a, **k: 0,
        "set_device_index": lambda *a, **k: None,
        "synchronize": lambda *a, **k: None,
        "current_stream": lambda *a, **k: torch.cuda.current_stream(),
    }
    for name, answer in answers.items():
        if hasattr(accelerator, name):
            setattr(accelerator, name, answer)


def _on_the_device(leaves, fake_class) -> bool:
    """Whether an operator involves the simulated GPU: a fake tensor among its arguments, or a CUDA
    device asked for (a factory with device="cuda", a copy to the device)."""
    import torch

    for leaf in leaves:
        if isinstance(leaf, fake_class) or (isinstance(leaf, torch.device) and leaf.type != "cpu"):
            return True
        if isinstance(leaf, str) and leaf.startswith("cuda"):
            return True
    return False


def _adopted(mode, fake_class, args, kwargs):
    """ARGS and KWARGS with each fake tensor of another mode (torch.compile's, met where Inductor
    benchmarks with its own example values) replaced by one of MODE's with the same layout."""
    import torch
    from torch.utils import _pytree as pytree

    def own(leaf):
        if not isinstance(leaf, fake_class) or leaf.fake_mode is mode:
            return leaf
        return torch.empty_strided(leaf.shape, leaf.stride(), dtype=leaf.dtype, device=leaf.device)

    with mode:
        return pytree.tree_map(own, (args, kwargs))


def _fake_tensor_mode(torch):
    """The one mode every tensor of the program is made under: a tensor on the simulated GPU is
    fake, one on the host is real (its values are the program's own, and reading them needs no GPU)."""
    from torch._subclasses import fake_tensor
    from torch.utils import _pytree as pytree

    if hasattr(fake_tensor, "init_gpu_context"):
        fake_tensor.init_gpu_context = lambda *a, **k: None  # it makes a real CUDA tensor
    # Every FakeTensorMode (torch.compile makes its own) must take the paths made for an absent
    # GPU, which it decides by asking torch.cuda.is_available(), answered True here: never run
    # an operator for real on CUDA constants; build torch.tensor(...) on the host, then move it.
    fake_tensor.FakeTensorMode.avoid_device_init = property(lambda self: True)
    fake_class = fake_tensor.FakeTensor

    class ProgramMode(fake_tensor.FakeTensorMode):
        """Host operators run for real; the rest as a FakeTensorMode runs them (shapes, no values)."""

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            leaves = pytree.arg_tree_leaves(*args, **kwargs)
            if not _on_the_device(leaves, fake_class):
                return _on_the_host(func, args, kwargs)  # this mode is off inside its own handler
            if func is _COPY[0] and not isinstance(args[0], fake_class) and HOST_COPY:
                return HOST_COPY[0](args[0], args[1])  # a value read: the device's values into a host tensor
            if func is _COPY[1] and _to_the_host(kwargs) and isinstance(args[0], fake_class) and HOST_COPY:
                moved = HOST_COPY[1](args[0], kwargs)  # a value read: `.to("cpu")` (None: torch's own)
                if moved is not None:
                    return moved
            if any(isinstance(leaf, fake_class) and leaf.fake_mode is not self for leaf in leaves):
                args, kwargs = _adopted(self, fake_class, args, kwargs)
            _DEPTH[0] += 1  # only the outermost operator is the program's (_DEPTH)
            try:
                result = super().__torch_dispatch__(func, types, args, kwargs)
            except fake_tensor.DynamicOutputShapeException:
                if not SHAPED_BY_VALUES:
                    raise
                return SHAPED_BY_VALUES[0](self, func, args, kwargs)  # a read (value_reads.py)
            except fake_tensor.DataDependentOutputException:
                if not SCALAR_READ:
                    raise
                return SCALAR_READ[0](self, func, args, kwargs)  # a read (value_reads.py)
            finally:
                _DEPTH[0] -= 1
            if RECORD and not _DEPTH[0]:
                RECORD[0](func, args, kwargs, result, fake_class)  # host_values.py's log
            return result

    import torch as _torch

    _COPY.extend([_torch.ops.aten.copy_.default, _torch.ops.aten._to_copy.default])
    mode = ProgramMode(allow_non_fake_inputs=True)
    mode.__enter__()
    return mode


_COPY: list = []
# Operators the program's mode is inside: the fake mode runs one it has not cached through its
# decomposition, whose operators come back to the mode; only the outermost is logged (index_add_ was
# logged with its decomposition too, its sum added twice on the host, the first time each shape came).
_DEPTH = [0]
# What answers a copy of a device tensor into a host tensor, and `.to("cpu")` (value_reads.py: the
# program's own copy is a value read; torch's are let through, as the fake mode answers them).
HOST_COPY: list = []


def _to_the_host(kwargs) -> bool:
    device = kwargs.get("device")
    return device is not None and str(device) == "cpu"


# What answers an operator whose result's shape depends on the values (nonzero, a boolean-mask
# index): value_reads.py's, a value read, computed on the host (or on stand-ins under --values N).
SHAPED_BY_VALUES: list = []
# What answers a scalar torch's C++ code reads from a device tensor (`_local_scalar_dense`, `equal`).
SCALAR_READ: list = []
# What logs each operator on device tensors, so that its values can be computed on the host when the
# program reads one (host_values.py; empty where reads are not answered on the host).
RECORD: list = []


def _on_the_host(func, args, kwargs):
    """A host operator, run for real; page-locked ("pinned") host memory, which needs a GPU driver,
    is plain host memory here (Inductor pins the host copies it keeps while it autotunes)."""
    import torch

    if func is torch.ops.aten.is_pinned.default:
        return False
    if func is torch.ops.aten._pin_memory.default:
        return args[0].clone()
    if kwargs.get("pin_memory"):
        kwargs = {**kwargs, "pin_memory": False}
    return func(*args, **kwargs)


def install_allocation() -> None:
    """In the traced program only (an import in tritonscope's own process cannot take it back)."""
    import torch

    _allocate_fake_where_modes_are_off(torch, _mode[0])
    # Inductor's cudagraph code (mode="reduce-overhead") allocates pinned host buffers by calling this
    # directly, past the dispatcher: plain host memory here, as pin_memory is (`Pinned memory requires CUDA`)
    guards = torch._C._dynamo.guards
    if hasattr(guards, "_empty_strided_cpu_pinned") and hasattr(guards, "_empty_strided_cpu"):
        guards._empty_strided_cpu_pinned = getattr(guards, "_empty_strided_cpu")  # noqa: B009 - no stubs name it
    _libraries.append(allocator.pinning_on_every_thread(torch))


def _allocate_fake_where_modes_are_off(torch, mode) -> None:
    """torch sometimes makes a device tensor with every mode off (constant propagation while it
    traces a graph: `torch.tensor([], device="cuda")` in transformers' DynamicCache): CUDA's
    allocation kernels give a fake tensor of the program's mode instead of asking the CUDA runtime
    (a CUDA build) or failing (a CPU build has none). Made from a meta tensor, with no dispatch, so
    that it works where torch has switched dispatch to Python off."""
    import warnings

    from torch._subclasses.fake_tensor import FakeTensor

    def device_of(device):
        return torch.device(device) if device is not None else torch.device("cuda", 0)

    def empty(size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        meta = torch.empty(size, dtype=dtype, device="meta", memory_format=memory_format or torch.contiguous_format)
        return FakeTensor(mode, meta, device_of(device))

    def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
        return FakeTensor(mode, torch.empty_strided(size, stride, dtype=dtype, device="meta"), device_of(device))

    library = torch.library.Library("aten", "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a CUDA build's own kernels are overridden on purpose
        library.impl("empty.memory_format", empty, "CUDA")
        library.impl("empty_strided", empty_strided, "CUDA")
    _libraries.append(library)


_libraries: list = []


def program_mode():
    """The program's FakeTensorMode, to enter where torch switched it off but a tensor must be fake."""
    return _mode[0]


def install(device: dict) -> None:
    import torch

    warnings.filterwarnings("ignore", message=".*data pointer of FakeTensor.*")
    warnings.filterwarnings("ignore", message=".*data_ptr.*FakeTensor.*")
    # the mode first: made while torch.cuda still says no GPU, it takes the paths made for that
    # (a no-op CUDA device guard on CUDA builds; torch.tensor built on the host, then moved)
    _mode.append(_fake_tensor_mode(torch))
    _patch_cuda(device, torch)
    _patch_device_interface(torch)
    _patch_accelerator(torch)
    from . import cuda_guard

    cuda_guard.install(torch)
    # torch warns once per process of a fake tensor's data pointer read: read one here (a device
    # tensor's: host tensors are real), where the warning is Python's and filtered above, not first
    # in C++ (torch._dynamo's guards on a compiled optimizer's state), which writes it to stderr
    torch.empty(1, device="cuda").data_ptr()
    from . import triton_ops

    triton_ops.install(_mode[0])
    from . import checkpoints, generators, module_apply

    for part in (module_apply, checkpoints, generators):
        part.install(torch)


def install_engine_hooks() -> bool:
    """The traced program's backward passes: torch's C++ autograd engine asks the CUDA hooks and device
    guard for the device, its streams and events, before it runs one on CUDA tensors; they are
    given the simulated device's answers (cuda_guard.cpp). True if a backward pass can run. Not in
    tritonscope's own process (an import of a kernel file, app/walk/simulated_import.py), whose CPU work
    must see the machine as it is."""
    import torch

    from . import cuda_guard

    return cuda_guard.install_engine(torch)
