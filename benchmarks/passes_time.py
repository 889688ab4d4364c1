"""`tritonscope passes --time` against a plain `tritonscope passes`, measured in one run.

--time compiles a second time, without IR dumps and with MLIR's and LLVM's timers on, in a
worker of its own that runs while the first compile's dumps are read; the target is at most
1.2x a plain `passes`. Both cold (an empty Triton cache, an empty user cache where passes keeps
its pass records), run in turns, medians. Kernels: sample:matmul on sm90, and the unrolled
kernel of the tests with N=64 (a compile whose MLIR passes take most of the time).

Run: python benchmarks/passes_time.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import installed

UNROLLED = str(Path(__file__).parent.parent / "tests" / "kernels" / "static_unroll.py")
KERNELS = {
    "sample:matmul sm90": ["sample:matmul", "--target", "sm90"],
    "static_range(64) sm90": [UNROLLED, "--target", "sm90", "-c", "N=64", "-c", "BLOCK=1024"],
}
PASSES = [sys.executable, "-m", "tritonscope", "passes", "--json"]


def cold(command: list[str]) -> float:
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as user:
        env = installed.environ(TRITON_CACHE_DIR=cache, XDG_CACHE_HOME=user)
        started = time.perf_counter()
        subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    for label, kernel in KERNELS.items():
        plain, timed = [], []
        for _ in range(runs):  # in turns, so that drift in machine load hits both alike
            plain.append(cold([*PASSES, *kernel]))
            timed.append(cold([*PASSES, *kernel, "--time"]))
        p, t = statistics.median(plain), statistics.median(timed)
        print(f"{label}: passes {p:5.2f} s, passes --time {t:5.2f} s: {t / p:.2f}x  (target <= 1.2x)")


if __name__ == "__main__":
    main()
