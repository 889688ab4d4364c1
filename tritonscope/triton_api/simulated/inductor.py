"""torch.compile's side of the simulated GPU: the settings and answers Inductor needs with no GPU.

- compile in this process (compile_threads=1): worker processes would not see the simulated GPU;
- the static CUDA launcher off: it loads cubins through the CUDA driver;
- `empty_strided_cuda` and `reinterpret_tensor`, which Inductor's generated code takes from C++,
  make fake tensors instead;
- every benchmark (block-size autotuning, coordinate descent, matmul templates) gets the same
  time, after calling the candidate once so that it is compiled as on a GPU (benchmark.py).
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
    except ImportError:  # a torch without Inductor: plain Triton programs still work
        pass
