"""Ray against local workers, measured in one run on this machine (issue 28).

A 64-config space of the matmul sample (`diff --space`, figures only) is explored twice, each
with a cold Triton cache: by local workers (-j 2), and through a Ray head of 2 CPUs started
here (`--cluster`). Printed: configs per second of each, the compile time per config, Ray's
overhead per task (64 empty tasks through the same executor), and that overhead as a share
of a compile (goal: at most 10%). The sizes that travel are printed too: the kernel's folder
(sent once) and one config's result.

A `diff --vary` variant on a cluster comes back finished: its node disassembled it (nvdisasm,
cuobjdump) and built its line maps, where local workers leave that to the parent, which reads
all the cubins in one nvdisasm run. `vary_costs` measures what moved: that work per variant,
done alone (on a node) and as a share of one run for 8 variants (on the head, before), and the
size of a finished compilation as it travels back.

Run: python benchmarks/cluster.py           (needs tritonscope[cluster])
     python benchmarks/cluster.py --vary    (vary_costs alone: no Ray needed)
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tritonscope.core.samples import samples_dir

SPACE = ["--space", "BLOCK_SIZE_M=32,64", "--space", "BLOCK_SIZE_N=32,64", "--space", "BLOCK_SIZE_K=32,64"]
SPACE += ["--space", "num_warps=2,4", "--space", "num_stages=2,3,4,5"]
CONFIGS = 64
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from ray_head import ray_head  # noqa: E402  (the tests' head: its own ports and session, checked gone)


def space(cache: str, *extra: str) -> float:
    argv = [sys.executable, "-m", "tritonscope", "diff", str(samples_dir() / "matmul.py"), "--target", "sm90"]
    started = time.perf_counter()
    env = {**os.environ, "TRITON_CACHE_DIR": cache}
    subprocess.run([*argv, *SPACE, "--json", *extra], check=True, capture_output=True, env=env)
    return time.perf_counter() - started


def per_task(workers) -> float:
    """Seconds of executor overhead per task: 64 empty tasks, with every slot busy."""
    from tritonscope.isolate import task

    tasks = [task(os.getpid) for _ in range(CONFIGS)]
    workers.run(tasks[:4])  # the workers started and warm
    started = time.perf_counter()
    workers.run(tasks)
    return (time.perf_counter() - started) * workers.jobs / CONFIGS


def main() -> None:
    from tritonscope.isolate import Workers
    from tritonscope.isolate.cluster import RayWorkers, pack

    with tempfile.TemporaryDirectory(prefix="rts-bench-", dir="/tmp") as folder:
        local = space(f"{folder}/cache-local", "-j", "2")
        with ray_head(env={**os.environ, "TRITON_CACHE_DIR": f"{folder}/cache-ray"}) as (address, _):
            try:
                remote = space(f"{folder}/cache-ray", "--cluster", address)
                with Workers(jobs=2) as workers:
                    local_task = per_task(workers)
                ray_task = per_task(RayWorkers(address))
            finally:
                import ray

                ray.shutdown()
    compile_seconds = local * 2 / CONFIGS  # two workers busy throughout
    bundle = len(pickle.dumps(pack(str(samples_dir()))))
    print(f"{CONFIGS}-config space of sample:matmul (diff --space, cold Triton cache), 2 cores")
    print(f"  local -j 2:        {local:6.1f} s  {CONFIGS / local:5.2f} configs/s")
    print(f"  Ray, 2 CPUs here:  {remote:6.1f} s  {CONFIGS / remote:5.2f} configs/s  ({remote / local:.2f}x the time)")
    print(f"  compile + explain per config: {compile_seconds * 1000:.0f} ms")
    print(f"  executor overhead per task: local {local_task * 1000:.1f} ms, Ray {ray_task * 1000:.1f} ms")
    print(f"  Ray's per-task overhead / a compile: {ray_task / compile_seconds:.1%} (goal <= 10%)")
    print(f"  sent once: the kernel's folder, {bundle / 1024:.0f} KiB; back per config: a figures dict")


def vary_costs(count: int = 8) -> None:
    """diff --vary's work after a compile, per variant: on its own (a node's), and as a share of one
    run for all (the parent's); and the size of a finished compilation. Cold Triton cache."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="rts-vary-")  # before Triton is imported
    from tritonscope.app.walk import sweep
    from tritonscope.app.walk.load import load_file
    from tritonscope.app.walk.prepare import compile_undisassembled, finish
    from tritonscope.core.model import VariantRequest

    base = VariantRequest(file=str(samples_dir() / "matmul.py"), target="sm90")
    axes = [sweep.Axis("BLOCK_SIZE_M", (32, 64)), sweep.Axis("BLOCK_SIZE_N", (32, 64)), sweep.Axis("num_warps", (2, 4))]
    variants = sweep.expand(base, axes, load_file(base.file).pick(None).spec, configs=False)[:count]
    compiles = [compile_undisassembled(v.request) for v in variants]
    memos = Path(os.environ["TRITON_CACHE_DIR"]) / "tritonscope"
    started = time.perf_counter()
    finished = finish(compiles)
    together = (time.perf_counter() - started) / len(compiles)
    for memo in memos.glob("*.sass"):  # nvdisasm's kept listings: each variant pays its own run below
        memo.unlink()
    started = time.perf_counter()
    for c in compiles:
        finish([c])
    alone = (time.perf_counter() - started) / len(compiles)
    size = sum(len(pickle.dumps(c)) for c in finished) / len(finished)
    print(f"diff --vary, {len(compiles)} variants of sample:matmul (sm90), the work after the compile per variant:")
    print(f"  on a node, alone (nvdisasm's start-up each): {alone * 1000:.0f} ms")
    print(f"  on the head, one nvdisasm run for all: {together * 1000:.0f} ms a variant (serial there)")
    print(f"  back per variant: a finished compilation, {size / 1024:.0f} KiB pickled")


if __name__ == "__main__":
    vary_costs() if sys.argv[1:] == ["--vary"] else main()
