"""`tritonscope passes` against `tritonscope dump`, for matmul on sm90, measured in one run.

passes compiles once more in a child process with every IR dump on, and parses about
seventy module snapshots; the target is at most 2x the time of dump. Both run with a cold
Triton cache (passes always compiles afresh), medians of several runs.

Run: python benchmarks/passes.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

COMMON = ["sample:matmul", "--target", "sm90", "--json"]
DUMP = [sys.executable, "-m", "tritonscope", "dump", *COMMON]
PASSES = [sys.executable, "-m", "tritonscope", "passes", *COMMON]


def cold(command: list[str]) -> float:
    with tempfile.TemporaryDirectory() as cache:
        started = time.perf_counter()
        subprocess.run(
            command,
            env={**os.environ, "TRITON_CACHE_DIR": cache},
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    dump, passes = [], []
    for _ in range(runs):  # interleaved, so that drift in machine load hits both alike
        dump.append(cold(DUMP))
        passes.append(cold(PASSES))
    d, p = statistics.median(dump), statistics.median(passes)
    print(f"dump   sample:matmul sm90: {d:6.2f} s")
    print(f"passes sample:matmul sm90: {p:6.2f} s   ratio passes/dump: {p / d:.2f}x  (target <= 2x)")


if __name__ == "__main__":
    main()
