"""Sweep speed, measured in one run: 8 matmul variants compiled by `tritonscope diff`.

1. Wall time at -j 1 over -j 2 (target: at least 1.75x on a 2-core machine), each with a
   cold Triton cache; the median of --runs runs of each (three by default), interleaved.
2. tritonscope's overhead per variant against the same 8 `triton.compile` calls made one
   after another in one bare process (cold cache too).
3. The part of a run that does not shrink with more workers (2 x the -j 2 time minus the -j 1
   time, if the compiles split evenly): what bounds the -j 2 gain.

The package is byte-compiled first, as `pip install` does, so that a checkout run with
PYTHONDONTWRITEBYTECODE=1 does not compile its sources in every process it times.

Run: python benchmarks/sweep.py [--runs N]
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from installed import load

import tritonscope

VARY = ["--vary", "num_warps=4,8", "--vary", "num_stages=2,3", "--vary", "BLOCK_SIZE_K=32,64"]
DIFF = [sys.executable, "-m", "tritonscope", "diff", "sample:matmul", "--target", "sm90", *VARY, "--json"]

# The same 8 compiles, bare: the signature is built by hand, as a user of triton.compile would.
BARE = """
import importlib.util, itertools, time
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tritonscope.core.samples import samples_dir

spec = importlib.util.spec_from_file_location("matmul", samples_dir() / "matmul.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
             "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
             "stride_cm": "i32", "stride_cn": "constexpr",
             "BLOCK_SIZE_M": "constexpr", "BLOCK_SIZE_N": "constexpr", "BLOCK_SIZE_K": "constexpr"}
attrs = {(i,): [["tt.divisibility", 16]] for i in (0, 1, 2, 3, 4, 5, 6, 8, 10)}
started = time.perf_counter()
for warps, stages, block_k in itertools.product((4, 8), (2, 3), (32, 64)):
    constants = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1,
                 "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": block_k}
    compiled = triton.compile(ASTSource(module.matmul_kernel, signature, constants, attrs),
                              target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": stages})
    assert compiled.asm["cubin"]
print(time.perf_counter() - started)
"""


CPU: dict[str, list[float]] = {}  # each command's CPU seconds (itself and the processes it waited for), by -j


def cold(command: list[str]) -> tuple[float, str]:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "TRITON_CACHE_DIR": cache}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        run = subprocess.run(command, env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    CPU.setdefault(command[-1], []).append(used)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} failed:\n{run.stderr[-2000:]}")
    return elapsed, run.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs at each -j (default 3)")
    count = parser.parse_args().runs
    compileall.compile_dir(Path(tritonscope.__file__).parent, quiet=1)
    runs: dict[str, list[float]] = {"1": [], "2": []}
    for _ in range(count):
        for jobs, times in runs.items():
            times.append(cold([*DIFF, "-j", jobs])[0])
    one, two = statistics.median(runs["1"]), statistics.median(runs["2"])
    bare_wall, out = cold([sys.executable, "-c", BARE])
    bare_compiles = float(out.strip().splitlines()[-1])
    fixed = 2 * two - one
    print(f"cores: {len(os.sched_getaffinity(0))} of {os.cpu_count()}; {load()}")
    print(f"diff, 8 matmul variants, -j 1: {one:6.2f} s  (median of {count})")
    print(f"diff, 8 matmul variants, -j 2: {two:6.2f} s   ratio -j1/-j2: {one / two:.2f}x  (target >= 1.75x)")
    cpu_one, cpu_two = (statistics.median(CPU[jobs]) for jobs in ("1", "2"))
    print(f"CPU (process and children): -j 1 {cpu_one:.2f} s, -j 2 {cpu_two:.2f} s: {cpu_two / cpu_one:.2f}x")
    print(f"bare triton.compile x 8, one process: {bare_compiles:6.2f} s compiling ({bare_wall:.2f} s with start-up)")
    print(
        f"tritonscope overhead per variant at -j 1: {(one - bare_wall) / 8:.3f} s "
        f"({one / bare_wall:.2f}x the bare process; target <= 1.5x)"
    )
    print(
        f"part that does not shrink with -j (2 x -j2 - -j1): {fixed:.2f} s; "
        f"1.75x would need it under {(one - fixed) * (2 - 1.75) / (2 * 0.75):.2f} s "
        f"with these {one - fixed:.2f} s of compiles"
    )


if __name__ == "__main__":
    main()
