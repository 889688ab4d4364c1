"""Runs and times kernels on the local GPU, through the run hooks of a kernel file.

Needs torch and a CUDA GPU; imported only by `tritonscope bench`. For each problem size
and variant: make the inputs, launch, check against the torch reference (a wrong result
is reported, never timed), time the kernel and the torch equivalent with
triton.testing.do_bench (median, warm-up excluded), and read the registers and spills
the driver reports for the kernel that ran.
"""

from __future__ import annotations

import functools
import inspect
import itertools

from ..analysis.resources import nvidia_occupancy
from ..core.errors import UsageError
from ..core.source import CachedKernel, cached_kernel
from ..core.targets import local_target
from ..core.values import format_value
from ..results.bench import BenchResult, LaunchTiming, Measurement, Peak, ReplayResult
from ..triton_api.runtime import do_bench, last_compiled
from .walk.load import LoadedFile, load_file
from .walk.sweep import Axis

HOOKS = ("make_inputs", "launch", "reference", "torch_op", "work")


def load_hooks(given: str) -> LoadedFile:
    """The kernel file, loaded as every command loads it, checked for its run hooks (docs/kernel-files.md)."""
    loaded = load_file(given)
    missing = [hook for hook in HOOKS if not callable(getattr(loaded.module, hook, None))]
    if missing:
        raise UsageError(
            f"{loaded.path.name} has no {', '.join(missing)}: bench needs the run hooks",
            hint="docs/kernel-files.md describes make_inputs, launch, reference, torch_op and work",
        )
    return loaded


def require_gpu(command: str = "bench"):
    try:
        import torch
    except ImportError:
        raise UsageError(f"{command} runs kernels and needs torch: pip install tritonscope[torch]") from None
    if not torch.cuda.is_available():
        raise UsageError(f"{command} runs kernels on a GPU, and none is visible here (the other commands need none)")
    return torch


def measure_peak() -> Peak:
    torch = require_gpu()
    src = torch.empty(1 << 28, dtype=torch.float32, device="cuda")  # 1 GiB
    dst = torch.empty_like(src)
    copy_ms = do_bench(lambda: dst.copy_(src))
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    matmul_ms = do_bench(lambda: a @ b)
    return Peak(2 * src.numel() * 4 / copy_ms / 1e6, 2 * 8192**3 / matmul_ms / 1e9)


def bench(file: str, sizes: list[int], axes: list[Axis], inputs: dict, space: bool = False) -> BenchResult:
    """Every size and variant run, checked and timed on the local GPU (with `space`, the Pareto set's)."""
    if space:
        return bench_space(file, sizes, axes, inputs, timeout=300.0)
    require_gpu()
    loaded = load_hooks(file)
    if not sizes:
        sizes = [inspect.signature(loaded.module.make_inputs).parameters["size"].default]
    peak = measure_peak()
    return BenchResult(file, peak, tuple(run(loaded, sizes, axes, inputs)))


def combinations(axes: list[Axis]) -> list[dict]:
    """Every combination of the axes, as the keyword arguments of the launch hook."""
    return [dict(zip((a.name for a in axes), v, strict=True)) for v in itertools.product(*(a.values for a in axes))]


def bench_space(file: str, sizes: list[int], axes: list[Axis], inputs: dict, timeout: float) -> BenchResult:
    """bench --space: the space compiled and explained (static figures), then only its Pareto set
    run, checked and timed on the GPU."""
    require_gpu()
    configs = pareto_configs(file, axes, timeout)
    loaded = load_hooks(file)
    if not sizes:
        sizes = [inspect.signature(loaded.module.make_inputs).parameters["size"].default]
    return BenchResult(file, measure_peak(), tuple(run(loaded, sizes, axes, inputs, configs)))


def pareto_configs(file: str, axes: list[Axis], timeout: float) -> list[dict]:
    """The launch arguments of the space's Pareto set, for the local GPU (or sm90 without one)."""
    import os

    from ..core.model import VariantRequest
    from .space import explore

    result = explore(VariantRequest(file=file).resolved(), axes, os.cpu_count() or 1, timeout)
    every = combinations(axes)
    return [every[i] for i in result.pareto]


def run(
    loaded: LoadedFile,
    sizes: list[int],
    axes: list[Axis],
    input_options: dict | None = None,
    configs: list[dict] | None = None,
) -> list[Measurement]:
    torch = require_gpu()
    module = loaded.module
    results = []
    for size in sizes:
        try:
            inputs = module.make_inputs(size, device="cuda", **(input_options or {}))
        except TypeError as exc:
            raise UsageError(f"make_inputs({size}, ...) failed: {exc}") from None
        expected = module.reference(*inputs).float()
        torch_ms = do_bench(functools.partial(module.torch_op, *inputs))
        work = _work(module.work(*inputs))
        for meta in configs if configs is not None else combinations(axes):
            label = {name: format_value(v) for name, v in meta.items()}
            try:
                output = module.launch(*inputs, **meta).float()
            except Exception as exc:  # noqa: BLE001 - the kernel file's code: report, go on
                results.append(
                    Measurement(
                        size,
                        label,
                        float("nan"),
                        False,
                        torch_ms=torch_ms,
                        failure=f"{type(exc).__name__}: {str(exc).splitlines()[0]}",
                        **work,
                    )
                )
                continue
            error = ((output - expected).abs().max() / expected.abs().max().clamp_min(1e-30)).item()
            tolerance = 2e-2 if inputs[0].dtype in (torch.float16, torch.bfloat16) else 1e-4
            if not error < tolerance:  # NaN fails too
                results.append(Measurement(size, label, error, False, torch_ms=torch_ms, **work))
                continue
            ms = do_bench(functools.partial(module.launch, *inputs, **meta))
            results.append(
                Measurement(
                    size,
                    label,
                    error,
                    True,
                    ms=ms,
                    torch_ms=torch_ms,
                    gbps=work["bytes"] / ms / 1e6,
                    tflops=work["flops"] / ms / 1e9,
                    **work,
                    **_last_kernel(loaded),
                )
            )
    return results


def _work(work: dict) -> dict:
    """One launch's flops and bytes, as the work hook gives them."""
    return {"flops": work["flops"], "bytes": work["bytes"]}


def _last_kernel(loaded: LoadedFile) -> dict:
    """Registers, spills and occupancy of the kernel the last launch ran, as the driver reports them."""
    import torch

    target = local_target()
    newest = last_compiled([k.jit for k in loaded.kernels], torch.cuda.current_device())
    if newest is None or target is None:
        return {}
    occupancy = nvidia_occupancy(target.limits, newest.n_regs, newest.metadata.shared, newest.metadata.num_warps)
    return {
        "registers": newest.n_regs,
        "spills": newest.n_spills,
        "occupancy": f"{occupancy.percent:.0f}% ({occupancy.limited_by})",
    }


def replay(reference: str) -> ReplayResult:
    """Each distinct recorded launch of a captured kernel (DIR/:KERNEL, as typed: a task of another
    release's worker is given the text), compiled as captured and timed."""
    from ..triton_api.replay import script_module, time_captured
    from .reproduce import script

    entry, launches = _recorded(cached_kernel(reference))
    require_gpu()
    peak = measure_peak()
    rows = []
    for number, launch in launches:
        ms, matched = time_captured(script_module(script(entry, launch, reference, [])))
        rows.append(_timing(number, launch, ms, matched))
    return ReplayResult(reference, entry.name, None, peak, tuple(rows))


def replay_file(file: str, kernel: str | None, captured: CachedKernel) -> ReplayResult:
    """A kernel of a file, launched by the JIT with each distinct recorded launch's arguments and options."""
    from ..triton_api.replay import script_module, time_jit
    from .reproduce import script

    reference = captured.given
    entry, launches = _recorded(captured)
    require_gpu()
    loaded = load_file(file).pick(kernel or entry.name)
    options = {k: entry.metadata[k] for k in ("num_warps", "num_stages") if isinstance(entry.metadata.get(k), int)}
    peak = measure_peak()
    rows = []
    for number, launch in launches:
        ms = time_jit(loaded.jit, script_module(script(entry, launch, reference, [])), options)
        rows.append(_timing(number, launch, ms, None))
    return ReplayResult(reference, loaded.spec.name, file, peak, tuple(rows))


def _recorded(captured: CachedKernel):
    """The captured entry and its distinct recorded launches, numbered from 1."""
    import json

    from ..captures.entries import find
    from .reproduce import pick_launch

    entry, _ = find(captured)
    pick_launch(entry, captured.given, 1)  # says so when none was recorded
    seen, launches = set(), []
    for number, launch in enumerate(entry.launches, start=1):
        key = json.dumps([launch["grid"], launch["args"]], sort_keys=True)
        if key not in seen:
            seen.add(key)
            launches.append((number, launch))
    return entry, launches


def _timing(number: int, launch: dict, ms: float, matched: bool | None) -> LaunchTiming:
    from ..core.launches import tensor_bytes, tensor_shapes

    size = sum(tensor_bytes(a) for a in launch["args"])
    return LaunchTiming(number, tuple(launch["grid"]), tensor_shapes(launch), ms, size, size / ms / 1e6, matched)
