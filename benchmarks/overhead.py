"""tritonscope's overhead over what it wraps, measured in one run (medians of several runs).

1. `tritonscope dump sample:vector_add --json` against a bare script that makes the same
   `triton.compile` call, with a cold Triton cache (a fresh directory each run) and warm.
   Targets: at most 1.2x cold, 1.5x warm.
2. `tritonscope --help` against `python -c "import typer, rich"`, and a check that --help
   imports neither torch nor Triton's compiler.

Run: python benchmarks/overhead.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

BARE_COMPILE = """
import importlib.util, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tritonscope.samples import samples_dir

spec = importlib.util.spec_from_file_location("vector_add", samples_dir() / "vector_add.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32",
             "BLOCK_SIZE": "constexpr"}
attrs = {(i,): [["tt.divisibility", 16]] for i in range(4)}
source = ASTSource(module.add_kernel, signature, {"BLOCK_SIZE": 1024}, attrs)
compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={})
assert compiled.asm["ptx"]
"""
DUMP = [sys.executable, "-m", "tritonscope", "dump", "sample:vector_add", "--target", "sm90", "--json"]
BARE = [sys.executable, "-c", BARE_COMPILE]
HELP = [sys.executable, "-m", "tritonscope", "--help"]
IMPORTS = [sys.executable, "-c", "import typer, rich"]
HELP_MODULES = (
    "import sys\nfrom typer.testing import CliRunner\nfrom tritonscope.cli import app\n"
    "CliRunner().invoke(app, ['--help'])\n"
    "print(sorted(m for m in ('torch', 'triton', 'triton.compiler') if m in sys.modules))"
)


def timed(command: list[str], cache: str) -> float:
    env = {**os.environ, "TRITON_CACHE_DIR": cache, "COLUMNS": "120"}
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def median_cold(command: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            samples.append(timed(command, cache))
    return statistics.median(samples)


def median_warm(command: list[str], runs: int, cache: str) -> float:
    timed(command, cache)  # fill the cache
    return statistics.median(timed(command, cache) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs

    rows = []
    # Interleave the two commands of each pair so drift in machine load hits both alike.
    rows.append(("dump --json, cold cache", median_cold(DUMP, runs), median_cold(BARE, runs), 1.2))
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        rows.append(("dump --json, warm cache", median_warm(DUMP, runs, a), median_warm(BARE, runs, b), 1.5))
    with tempfile.TemporaryDirectory() as cache:
        rows.append(("--help", median_warm(HELP, runs, cache), median_warm(IMPORTS, runs, cache), None))

    print(f"{'measure':26} {'tritonscope':>12} {'baseline':>10} {'ratio':>7}  target")
    for name, ours, base, target in rows:
        verdict = "" if target is None else (f"<= {target}x " + ("ok" if ours / base <= target else "MISSED"))
        print(f"{name:26} {ours:11.3f}s {base:9.3f}s {ours / base:6.2f}x  {verdict}")
    print("baselines: a bare triton.compile of the same kernel; `python -c 'import typer, rich'` for --help")

    loaded = subprocess.run([sys.executable, "-c", HELP_MODULES], capture_output=True, text=True, check=True)
    print(f"modules --help imports among torch, triton, triton.compiler: {loaded.stdout.strip()}")


if __name__ == "__main__":
    main()
