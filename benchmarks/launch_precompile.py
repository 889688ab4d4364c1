"""Compiles every (kernel, size, config) of the launch set at once, before anything is timed, so
that benchmarks/launch_ground_truth.py spends its minutes on the GPU timing rather than waiting on
a hundred serial compiles.

1. capture: each case's launcher runs with Triton's jit_cache_hook answering "do not compile":
   Triton has specialized the launch (signature, constants, the divisible-by-16 attributes,
   options) and hands that over as its own `specialization_data`, then returns without compiling
   or launching.
2. compile: a pool of processes rebuilds each specialization as `JITFunction.preload` does and
   calls triton.compile for the GPU's target, into the Triton cache shared with this process.

The real launch afterwards specializes the same way and finds its kernel in the cache. Without a
GPU (--compile-only) the same two steps run for sm90 with the inputs on torch's meta device and a
driver that answers only the target: a check of the whole set's compiles, their shared memory and
their compile time, here.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import json
import multiprocessing
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAUNCH_SET = ROOT / "tests" / "kernels" / "launch_set"


def load_kernel_file(path: Path):
    """A kernel file of the set as a module (its folder on the path, for launch_set.py)."""
    if str(LAUNCH_SET) not in sys.path:
        sys.path.insert(0, str(LAUNCH_SET))
    spec = importlib.util.spec_from_file_location(f"launch_set_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def jit_function(module, name: str):
    """The @triton.jit function under its @triton.autotune wrapper."""
    kernel = getattr(module, name)
    return getattr(kernel, "fn", kernel)


class Capture:
    """While active, a JIT launch specializes and records itself, compiles nothing, launches nothing."""

    def __init__(self):
        self.found: list[str] = []

    def __enter__(self):
        from triton import knobs

        self.previous = knobs.runtime.jit_cache_hook
        knobs.runtime.jit_cache_hook = self._heard
        return self

    def _heard(self, *, compile, **_):
        self.found.append(compile["specialization_data"])
        return True  # Triton: "skip this compile"; the launch then returns None

    def __exit__(self, *exc):
        from triton import knobs

        knobs.runtime.jit_cache_hook = self.previous


def compile_one(path: str, kernel: str, specialization: str, target: tuple) -> dict:
    """In a worker: one specialization compiled for TARGET, as JITFunction.preload rebuilds it."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend

    began = time.monotonic()
    try:
        fn = jit_function(load_kernel_file(Path(path)), kernel)
        data = json.loads(specialization)
        constexprs = {tuple(k): _constant(v) for k, v in zip(data["constant_keys"], data["constant_vals"], strict=True)}
        attrs = dict(zip(map(tuple, data["attrs_keys"]), data["attrs_vals"], strict=True))
        signature = {k: tuple(v) if isinstance(v, list) else v for k, v in data["signature"].items()}
        gpu = GPUTarget(*target)
        options = make_backend(gpu).parse_options(
            {k: tuple(v) if isinstance(v, list) else v for k, v in data["options"].items()}
        )
        compiled = triton.compile(ASTSource(fn, signature, constexprs, attrs), target=gpu, options=options.__dict__)
        shared = compiled.metadata.shared
        return {"ok": True, "seconds": time.monotonic() - began, "shared": shared, "hash": compiled.hash}
    except Exception as error:  # noqa: BLE001 - a config that does not compile is a result, said in one line
        return {"ok": False, "seconds": time.monotonic() - began, "error": f"{type(error).__name__}: {error}"[:300]}


def described(specialization: str) -> str:
    """A specialization in a few words: its constexprs, warps and stages."""
    data = json.loads(specialization)
    names = [name for name, kind in data["signature"].items() if kind == "constexpr"]
    values = [v["constexpr"] if isinstance(v, dict) else v for v in data["constant_vals"]]
    constants = " ".join(f"{n}={v}" for n, v in zip(names, values, strict=False))
    return f"{constants} num_warps={data['options']['num_warps']} num_stages={data['options']['num_stages']}"


def _constant(value):
    """A constant as Triton's specialization data spells it, made a value again (as preload does)."""
    import triton.language as tl

    if tl.dtype.is_dtype(value):
        return tl.dtype(value)
    return tl.constexpr(value["constexpr"]) if isinstance(value, dict) and "constexpr" in value else value


def compile_all(specs: list[tuple[str, str, str]], target: tuple, jobs: int) -> dict:
    """Each distinct (file, kernel, specialization) compiled once, JOBS at a time, in fresh
    processes (spawned: the parent holds a CUDA context). Returns a summary and each result."""
    distinct = list(dict.fromkeys(specs))
    began = time.monotonic()
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max(1, jobs), mp_context=context) as pool:
        futures = [pool.submit(compile_one, path, kernel, spec, target) for path, kernel, spec in distinct]
        results = [future.result() for future in futures]
    named = [
        {"file": Path(spec[0]).name, "what": described(spec[2]), **result}
        for spec, result in zip(distinct, results, strict=True)
    ]
    failed = [{"file": r["file"], "what": r["what"], "error": r["error"]} for r in named if not r["ok"]]
    return {
        "specializations": len(distinct),
        "compiled": sum(r["ok"] for r in results),
        "failed": failed,
        "wall_s": round(time.monotonic() - began, 2),
        "compile_s_total": round(sum(r["seconds"] for r in results), 2),
        "jobs": jobs,
        "results": named,
    }


class TargetOnlyDriver:
    """A Triton driver that answers the target and nothing a launch needs: enough to specialize a
    launch for sm90 on a machine without a GPU (the capture compiles and launches nothing)."""

    def __init__(self, arch: int = 90):
        from triton.backends.compiler import GPUTarget

        self.target = GPUTarget("cuda", arch, 32)

    def get_current_target(self):
        return self.target

    def get_current_device(self) -> int:
        return 0

    def get_current_stream(self, device=None) -> int:
        return 0

    def get_active_torch_device(self):
        import torch

        return torch.device("meta")

    def map_python_to_cpp_type(self, ty: str) -> str:
        return ty


def use_target_only_driver(arch: int = 90) -> tuple:
    """Makes TargetOnlyDriver Triton's active driver; returns the target as compile_one takes it."""
    from triton.runtime import driver

    fake = TargetOnlyDriver(arch)
    driver.set_active(fake)
    return (fake.target.backend, fake.target.arch, fake.target.warp_size)
