"""torch.compile's side of the simulated GPU: the settings and answers Inductor needs with no GPU.

- compile in this process (compile_threads=1): worker processes would not see the simulated GPU;
- the static CUDA launcher off: it loads cubins through the CUDA driver;
- `empty_strided_cuda` and `reinterpret_tensor`, which Inductor's generated code takes from C++,
  make fake tensors instead;
- every benchmark (block-size autotuning, coordinate descent, matmul templates) gets the same
  time, after calling the candidate once so that it is compiled as on a GPU (benchmark.py);
- a compiled optimizer step: torch._dynamo initialises the optimizer's state where it has switched
  the program's fake mode off, and Inductor's constant folding computes one-element constants on
  the device to read their values: the state is made under the program's mode, the constants on
  the host;
- a one-element constant built with device="cuda" in a compiled function is lifted on the device
  before that folding, as on a GPU (device_lift.py).
Each step is skipped on a torch release that lacks the setting it changes.
"""

from __future__ import annotations

from . import benchmark
from .after_import import after_import


def _fake_allocation(torch) -> None:
    guards = torch._C._dynamo.guards

    def empty_strided_cuda(size, stride, dtype, *args, **kwargs):
        return torch.empty_strided(size, stride, dtype=dtype, device="cuda")

    def reinterpret_tensor(tensor, size, stride, offset=0):
        return torch.as_strided(tensor, size, stride, tensor.storage_offset() + offset)

    guards._empty_strided_cuda = empty_strided_cuda
    guards._reinterpret_tensor = reinterpret_tensor


def _benchmark_gpu(self, fn, *args, **kwargs) -> float:
    benchmark.call_once(fn)
    return benchmark.SIMULATED_MS


def _answer_benchmarks() -> None:
    from torch._inductor.runtime import benchmarking

    for name in ("Benchmarker", "TritonBenchmarker", "InductorBenchmarker", "TorchProfilerBenchmarker"):
        cls = getattr(benchmarking, name, None)
        if cls is not None:
            cls.benchmark_gpu = _benchmark_gpu
            if hasattr(cls, "benchmark_gpu_with_cuda_graph"):
                cls.benchmark_gpu_with_cuda_graph = _benchmark_gpu


def _fake_example_values(testing) -> None:
    """Benchmark inputs (matmul templates under max-autotune, fused-node benchmarks) come from
    torch._dynamo.testing.rand_strided, called where Inductor has switched the program's fake mode
    off, so they would be real CUDA tensors: make them fake, under the program's mode."""
    from .torch_cuda import program_mode

    original = testing.rand_strided

    def rand_strided(*args, **kwargs):
        with program_mode():
            return original(*args, **kwargs)

    testing.rand_strided = rand_strided


def _state_under_the_program_mode(optimizer_module) -> None:
    """torch._dynamo runs an optimizer's `_init_group` for real, outside its own tracing (so not
    traced), with every mode off: its `torch.zeros(..., device=p.device)` would be a real CUDA
    tensor. Under the program's mode it is fake, like the parameters it belongs to."""
    from .torch_cuda import program_mode

    variable = optimizer_module.OptimizerVariable
    original = variable.call_method

    def call_method(self, tx, name, *args, **kwargs):
        if name != "_init_group":
            return original(self, tx, name, *args, **kwargs)
        with program_mode():
            return original(self, tx, name, *args, **kwargs)

    variable.call_method = call_method


def _pad_mm_under_the_program_mode(pad_mm) -> None:
    """Inductor's pad_mm times a matmul padded against unpadded, on device tensors it makes with
    every mode off (no_dispatch), which would be real CUDA tensors. Made under the program's mode
    they are fake; the benchmark answers both with the same time, so padding is not faster and the
    matmul is not padded (as the H100 chose for every unaligned matmul of the corpus)."""
    from .torch_cuda import program_mode

    pad_mm.no_dispatch = program_mode


# said after Inductor's "skipping cudagraphs due to"
NO_GRAPHS = "the simulated GPU, which captures and replays no CUDA graph (the kernels are compiled as with graphs)"


def _no_cuda_graphs(cudagraph_utils) -> None:
    """mode="reduce-overhead" records the compiled graph into a CUDA graph (the caching allocator's
    private pools, a capture on a side stream), which needs the CUDA driver; Inductor's kernels are
    the same with or without it. Inductor is told why it skips the graph, as it is for a graph
    that cannot be captured, and runs the compiled code directly."""
    cudagraph_utils.check_lowering_disable_cudagraph = lambda *a, **k: NO_GRAPHS


def _fold_constants_on_the_host(joint_graph) -> None:
    """Inductor's constant_fold_uniform_value computes a one-element tensor for each value it can
    know at compile time (`aten.full([1], v, device=cuda)`, then the pointwise ops on it) and reads
    it with `.item()`; the graph it writes keeps the original device. The same ops on the host give
    the same numbers (IEEE arithmetic; a transcendental may differ in its last bit between CUDA's
    and the CPU's libraries), so the folded graph is the one a GPU run compiles."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    cuda, host = "cuda", torch.device("cpu")

    class OnTheHost(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if kwargs.get("device") is not None and torch.device(kwargs["device"]).type == cuda:
                kwargs["device"] = host
            if func is torch.ops.prims.device_put.default:
                args = (args[0], host, *args[2:])
            return func(*args, **kwargs)

    folder = joint_graph.UniformValueConstantFolder
    for name in ("run", "_add_peephole_patterns"):  # both make the constants
        original = getattr(folder, name)

        def on_the_host(self, *args, _original=original, **kwargs):
            with OnTheHost():
                return _original(self, *args, **kwargs)

        setattr(folder, name, on_the_host)


def _joint_graph_answers(joint_graph) -> None:
    """One callback for the module (after_import runs only the first one registered for a name)."""
    from . import device_lift

    _fold_constants_on_the_host(joint_graph)
    device_lift.install(joint_graph)


def _settings() -> None:
    from torch._inductor import config

    config.compile_threads = 1
    for name in ("use_static_cuda_launcher", "static_launch_user_defined_triton_kernels"):
        if hasattr(config, name):
            setattr(config, name, False)
    if hasattr(config, "autotune_in_subproc"):
        config.autotune_in_subproc = False  # a subprocess would not see the simulated GPU


def _refuse_rocm_compiles() -> None:
    """torch.compile decides CUDA or ROCm code from torch's build, not from the device: with a CUDA
    or CPU build it would write CUDA code for an AMD target. Stop with one line instead."""
    from torch._inductor import compile_fx as module

    def compile_fx(*args, **kwargs):
        from . import stop

        stop.stop(stop.program_caller(), "torch.compile for an AMD GPU, which needs torch's ROCm build")

    module.compile_fx = compile_fx


def install(device: dict) -> None:
    import torch

    if device["backend"] == "hip" and torch.version.hip is None:
        _refuse_rocm_compiles()
    _fake_allocation(torch)
    try:
        _answer_benchmarks()
        _settings()
        after_import("torch._dynamo.testing", _fake_example_values)
        after_import("torch._dynamo.variables.optimizer", _state_under_the_program_mode)
        after_import("torch._inductor.fx_passes.joint_graph", _joint_graph_answers)
        after_import("torch._inductor.fx_passes.pad_mm", _pad_mm_under_the_program_mode)
        after_import("torch._inductor.cudagraph_utils", _no_cuda_graphs)
    except ImportError:  # a torch without Inductor: plain Triton programs still work
        pass
