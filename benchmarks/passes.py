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
import sys
import tempfile

import installed

COMMON = ["sample:matmul", "--target", "sm90", "--json"]
DUMP = [sys.executable, "-m", "tritonscope", "dump", *COMMON]
PASSES = [sys.executable, "-m", "tritonscope", "passes", *COMMON]


CPU: dict[tuple[str, ...], list[float]] = {}  # each cold command's CPU seconds, run by run


def timed(command: list[str], env: dict[str, str]) -> float:
    wall, cpu = installed.run(command, installed.environ(**env))
    CPU.setdefault(tuple(command), []).append(cpu)
    return wall


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
    cpu_dump, cpu_passes = (statistics.median(CPU[tuple(c)]) for c in (DUMP, PASSES))
    print(
        f"cold, CPU (process and children): dump {cpu_dump:.2f} s, passes {cpu_passes:.2f} s: "
        f"{cpu_passes / cpu_dump:.2f}x; {installed.load()}"
    )
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
