"""`tritonscope passes` against `tritonscope dump`, for matmul on sm90, measured in one run.

passes compiles once more in a child process with every IR dump on, and parses about
seventy module snapshots; the target is at most 2x the time of dump, both with cold caches
(Triton's, and the user cache where passes keeps its records). Then, with both warm, `passes
--show` of the same variant reads the records back: at most 1.2x a warm dump. Medians.

Run: python benchmarks/passes.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

import installed

COMMON = ["sample:matmul", "--target", "sm90", "--json"]
DUMP = [sys.executable, "-m", "tritonscope", "dump", *COMMON]
PASSES = [sys.executable, "-m", "tritonscope", "passes", *COMMON]


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        command, env=installed.environ(**env), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - started


def cold(command: list[str]) -> float:
    """With an empty Triton cache and an empty user cache (where passes keeps its records)."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as user:
        return timed(command, {"TRITON_CACHE_DIR": cache, "XDG_CACHE_HOME": user})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    dump, passes = [], []
    for _ in range(runs):  # interleaved, so that drift in machine load hits both alike
        dump.append(cold(DUMP))
        passes.append(cold(PASSES))
    d, p = statistics.median(dump), statistics.median(passes)
    print(f"cold: dump   sample:matmul sm90: {d:6.2f} s")
    print(f"cold: passes sample:matmul sm90: {p:6.2f} s   ratio passes/dump: {p / d:.2f}x  (target <= 2x)")
    print(installed.load())
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as user:
        env = {"TRITON_CACHE_DIR": cache, "XDG_CACHE_HOME": user}
        timed(DUMP, env), timed(PASSES, env)  # both kept: the compile, and the pass records
        warm_dump = statistics.median(timed(DUMP, env) for _ in range(runs))
        show = statistics.median(timed([*PASSES, "--show", "tritongpu-pipeline"], env) for _ in range(runs))
    print(
        f"warm: dump {warm_dump:.2f} s, passes --show tritongpu-pipeline {show:.2f} s: "
        f"{show / warm_dump:.2f}x  (target <= 1.2x)"
    )


if __name__ == "__main__":
    main()
