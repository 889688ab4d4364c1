"""The GPU's own figures, measured once, for a launch-time model to use as the target's ceilings
(benchmarks/launch_ground_truth.py records them beside its timings):

- dram_copy: a device-to-device copy far beyond L2 (2 GiB), bytes read plus written per second;
- l2_copy: copies small enough to stay in L2 (4, 8, 16, 24 MiB read plus as much written),
  repeated back to back; the best is the L2 figure;
- matmul_bf16: an 8192^3 bf16 product through torch (cuBLAS), on random data;
- empty_launch: a Triton kernel that does nothing: the host's time per launch (launches issued
  back to back), the GPU's time per kernel (a CUDA graph of 1000 of them replayed), and what
  triton.testing.do_bench reports for one (its floor: the time of any small kernel includes it).

Each figure is the median of several timed repetitions, with CUDA events.
"""

from __future__ import annotations

import statistics
import subprocess
import time

import triton


@triton.jit
def empty_kernel(x_ptr):
    pass


def _events_ms(run, repeats: int, inner: int) -> float:
    """The median over REPEATS of the time of INNER back-to-back calls of RUN, per call, in ms."""
    import torch

    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / inner)
    return statistics.median(times)


def dram_copy() -> dict:
    import torch

    size = 2 * 2**30
    src = torch.ones(size, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    dst.copy_(src)
    ms = _events_ms(lambda: dst.copy_(src), repeats=5, inner=4)
    return {"bytes_moved": 2 * size, "ms": ms, "gb_per_s": 2 * size / ms / 1e6}


def l2_copy() -> dict:
    import torch

    found = {}
    for mib in (4, 8, 16, 24):
        size = mib * 2**20
        src = torch.ones(size, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        copy = dst.copy_
        for _ in range(20):
            copy(src)
        ms = _events_ms(lambda copy=copy, src=src: copy(src), repeats=5, inner=200)
        found[f"{mib}MiB"] = {"bytes_moved": 2 * size, "ms": ms, "gb_per_s": 2 * size / ms / 1e6}
    best = max(found.values(), key=lambda figure: figure["gb_per_s"])
    return {"gb_per_s": best["gb_per_s"], "by_size": found}


def matmul_bf16() -> dict:
    import torch

    n = 8192
    a, b = (torch.randn(n, n, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    for _ in range(3):
        a @ b
    ms = _events_ms(lambda: a @ b, repeats=5, inner=4)
    return {"size": [n, n, n], "ms": ms, "tflop_per_s": 2 * n**3 / ms / 1e9}


def empty_launch() -> dict:
    """An empty Triton kernel: the host's time per launch (2000 issued back to back), what do_bench
    reports for one, and the GPU's time per kernel in a CUDA graph of 1000 (each apart: a graph
    that cannot be captured leaves the other two)."""
    import torch

    x = torch.empty(1, device="cuda")
    empty_kernel[(1,)](x)
    torch.cuda.synchronize()
    count = 2000
    began = time.perf_counter()
    for _ in range(count):
        empty_kernel[(1,)](x)
    found = {"host_us_per_launch": (time.perf_counter() - began) / count * 1e6}
    torch.cuda.synchronize()
    bench_ms = triton.testing.do_bench(lambda: empty_kernel[(1,)](x), warmup=10, rep=50, return_mode="median")
    found["do_bench_us"] = bench_ms * 1000
    found["gpu_us_per_kernel_in_graph"] = _guarded(lambda: {"us": _graph_us(x)}).get("us")
    return found


def _graph_us(x) -> float:
    import torch

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(1000):
            empty_kernel[(1,)](x)
    replay_ms = _events_ms(graph.replay, repeats=5, inner=1)  # 1000 kernels a replay
    return replay_ms * 1000 / 1000


def clocks() -> dict:
    """nvidia-smi's clocks and power now (the SM clock falls when idle)."""
    fields = "clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu"
    try:
        done = subprocess.run(
            ["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=20,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as error:
        return {"error": str(error)}
    values = done.stdout.strip().splitlines()[0].split(", ") if done.stdout.strip() else []
    return dict(zip(fields.split(","), values, strict=False)) or {"error": done.stderr.strip()}


def device() -> dict:
    import torch

    properties = torch.cuda.get_device_properties(0)
    names = (
        "name", "multi_processor_count", "total_memory", "L2_cache_size", "shared_memory_per_block_optin",
        "shared_memory_per_multiprocessor", "regs_per_multiprocessor", "max_threads_per_multi_processor",
        "warp_size", "major", "minor",
    )  # fmt: skip
    return {name: getattr(properties, name, None) for name in names}


def measure() -> dict:
    """Every figure, each given a chance to fail alone (its error recorded in its place)."""
    found = {}
    for name, figure in (("dram_copy", dram_copy), ("l2_copy", l2_copy), ("matmul_bf16", matmul_bf16)):
        found[name] = _guarded(figure)
    found["empty_launch"] = _guarded(empty_launch)
    return found


def _guarded(figure) -> dict:
    try:
        return figure()
    except Exception as error:  # noqa: BLE001 - one figure's failure is recorded, the others still measured
        return {"error": f"{type(error).__name__}: {error}"[:300]}
