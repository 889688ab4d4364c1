"""Triton's side of the simulated GPU: an active driver for the target that compiles and never launches.

The real CudaDriver cannot be built with no GPU (it loads libcuda), so this one answers what
Triton's runtime and torch.compile ask: the target, the device's properties, a launcher (which
does nothing: a launch is recorded by the capture hook's CompiledKernel.launch_metadata wrapper)
and `load_binary`, which must give the cubin's real registers and spills because torch.compile
prunes and rescales its configs by them (read with the cuobjdump Triton ships).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import subprocess
import tempfile

from . import benchmark


class _Launcher:
    """Triton's launcher for one compiled kernel: nothing runs on a simulated GPU."""

    def __init__(self, src, metadata):
        self.src, self.metadata = src, metadata

    def __call__(self, *args, **kwargs) -> None:
        if LAUNCHED:  # the host's values of what the kernel writes are unknown (host_values.py)
            LAUNCHED[0](getattr(self.metadata, "name", None) or "a Triton kernel", args)
        return None


LAUNCHED: list = []  # where a launch is told to the host's values, when they are computed


@functools.cache
def _cuobjdump() -> str | None:
    try:
        from triton import knobs  # type: ignore[import-untyped]

        return knobs.nvidia.cuobjdump.path
    except Exception:  # noqa: BLE001 - an older release: the figures are then estimates
        return None


def cubin_resources(cubin: bytes) -> tuple[int, int]:
    """(registers per thread, spilled words per thread) of a cubin's kernel, as the CUDA driver
    reports them (local memory bytes / 4, as Triton's driver.c does)."""
    tool = _cuobjdump()
    if tool is None or not cubin:
        return 32, 0
    with tempfile.NamedTemporaryFile(suffix=".cubin") as handle:
        handle.write(cubin)
        handle.flush()
        try:
            text = subprocess.run([tool, "-res-usage", handle.name], capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            return 32, 0
    registers = re.search(r"REG:(\d+)", text)
    local = re.search(r"LOCAL:(\d+)", text)
    return (int(registers.group(1)) if registers else 32), (int(local.group(1)) // 4 if local else 0)


def _max_threads(registers: int) -> int:
    """Threads per block the registers allow (the driver's MAX_THREADS_PER_BLOCK)."""
    per_warp = -(-max(registers, 1) * 32 // 256) * 256
    return max(32, min(1024, 65536 // per_warp * 32))


class _Utils:
    def __init__(self, device: dict):
        self.device = device

    def get_device_properties(self, index=0) -> dict:
        d = self.device
        return {
            "max_shared_mem": d["shared_memory_per_block_optin"],
            "max_num_regs": 65536,
            "multiprocessor_count": d["multiprocessor_count"],
            "warpSize": d["warp_size"],
            "sm_clock_rate": d.get("clock_rate_khz", 1980000),
            "mem_clock_rate": d.get("memory_clock_rate_khz", 2619000),
            "mem_bus_width": d.get("memory_bus_width", 5120),
        }

    def load_binary(self, name, kernel, shared, device):
        if self.device["backend"] != "cuda":
            return 0, 0, 0, 0, 1024  # AMD code objects: registers are read from the AMDGCN later
        registers, spills = cubin_resources(kernel)
        return 0, 0, registers, spills, _max_threads(registers)

    def fill_tma_descriptor(self, *args, **kwargs):
        return object()

    def set_printf_fifo_size(self, *args) -> None:
        return None

    def cuOccupancyMaxActiveClusters(self, *args) -> int:
        return 1

    def unload_module(self, *args) -> None:
        return None


def _driver_class(device: dict):
    from triton.backends.compiler import GPUTarget  # type: ignore[import-untyped]
    from triton.backends.driver import DriverBase  # type: ignore[import-untyped]

    class SimulatedDriver(DriverBase):
        """Triton's active driver: the target's GPU, device 0, stream 0; launches do nothing."""

        def __init__(self):
            self.utils = _Utils(device)
            self.launcher_cls = _Launcher
            self.get_current_stream = lambda *a: 0
            self.get_current_device = lambda: 0
            self.set_current_device = lambda *a: None
            self.get_device_capability = lambda *a: tuple(device["capability"])

        @staticmethod
        def is_active() -> bool:
            return True

        def get_current_target(self):
            return GPUTarget(device["backend"], device["arch"], device["warp_size"])

        def get_active_torch_device(self):
            import torch

            return torch.device("cuda", 0)

        def get_device_interface(self):
            import torch

            return torch.cuda

        def map_python_to_cpp_type(self, ty: str) -> str:
            from triton.backends.nvidia.driver import ty_to_cpp  # type: ignore[import-untyped]

            return ty_to_cpp(ty)

        def get_benchmarker(self):
            return benchmark.do_bench

        def get_empty_cache_for_benchmark(self):
            import torch

            return torch.empty(64 * 1024 * 1024, dtype=torch.int, device="cuda")

        def clear_cache(self, cache) -> None:
            return None

    return SimulatedDriver


def install(device: dict) -> None:
    """Make the simulated driver Triton's active one, and the one a fresh driver is made from
    (torch.compile makes its own from triton.backends.backends[...].driver)."""
    import triton
    from triton.backends import backends  # type: ignore[import-untyped]

    cls = _driver_class(device)
    vendor = "nvidia" if device["backend"] == "cuda" else "amd"
    for name, backend in backends.items():
        # a frozen dataclass: set as its own __init__ would
        if name == vendor:
            object.__setattr__(backend, "driver", cls)
        else:  # the other vendor's driver must not claim to be active too
            inactive = type(f"Inactive{name}", (cls,), {"is_active": staticmethod(lambda: False)})
            object.__setattr__(backend, "driver", inactive)
    triton.runtime.driver.set_active(cls())
    os.environ.setdefault("TRITON_CACHE_AUTOTUNING", "0")
    if vendor == "nvidia":
        _answer_cublas()


class _CublasLt:
    """Triton's own cuBLAS binding (`nvidia.cublas.CublasLt`: the tutorials' reference matmul, made
    at import time), made without loading libcublas.so: cuBLAS compiles no Triton kernel, so nothing
    the GPU would capture is lost. With values on the host, its matmul and gemm are computed there
    (host_values.CublasCall); any other call leaves its output (the last tensor given) with no value
    on the host, and a read of it says so."""

    def __init__(self, workspace=None):
        self.workspace = workspace

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args, **kwargs) -> None:
            if CUBLAS_CALLED:
                CUBLAS_CALLED[0](name, args)

        return call


CUBLAS_CALLED: list = []  # where a call of Triton's cuBLAS binding is told to the host's values


def _answer_cublas() -> None:
    with contextlib.suppress(ImportError, AttributeError):
        from triton._C.libtriton import nvidia  # type: ignore[import-untyped]

        nvidia.cublas.CublasLt = _CublasLt
