"""The Python API against the command line, ratios measured in one run (python benchmarks/api.py):

- the first `ts.dump` in a fresh interpreter (`import tritonscope as ts; ts.dump(...)`, the process's
  whole wall time) against `tritonscope dump --json` of the same variant (the same): at most 1.2x;
- a repeated call in the same session, and one whose variant the session compiled before (another
  stage list; `auto` for the same target): under 50 ms each. The explicit target is the one `auto`
  resolves to on this machine (sm90 with no GPU, h200 on an H200), so that both name one variant.

Triton's cache is warm for both sides (each variant is compiled once before timing), so both measure
what a user's second look costs, start-up included; the runs alternate, and the medians are compared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from tritonscope.core.targets import auto

KERNEL = "sample:vector_add"
TARGET = auto().name  # what `auto` compiles for here
FLAGS = ["-t", TARGET, "-c", "BLOCK_SIZE=1024", "-a", "n_elements=4096"]
API_CALL = f"ts.dump({KERNEL!r}, target={TARGET!r}, BLOCK_SIZE=1024, args={{'n_elements': 4096}})"
FIRST = f"import tritonscope as ts\nts.dump  # the API imported, as a notebook's first cell would\n{API_CALL}"
AGAIN = f"""import time
import tritonscope as ts
{API_CALL}
started = time.perf_counter(); {API_CALL}; repeated = time.perf_counter() - started
ts.dump({KERNEL!r}, target={TARGET!r}, BLOCK_SIZE=1024, args={{'n_elements': 4096}}, stages=['ttgir'])
started = time.perf_counter()
ts.dump({KERNEL!r}, BLOCK_SIZE=1024, args={{'n_elements': 4096}}, stages=['ptx', 'sass'])
compiled_before = time.perf_counter() - started
print(repeated, compiled_before)
"""


def _wall(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "TRITON_CACHE_DIR": cache}
        cli = [sys.executable, "-m", "tritonscope", "dump", KERNEL, *FLAGS, "--json"]
        api = [sys.executable, "-c", FIRST]
        _wall(cli, env), _wall(api, env)  # Triton's cache warmed for both
        times: dict[str, list[float]] = {"cli": [], "api": []}
        for _ in range(runs):
            times["cli"].append(_wall(cli, env))
            times["api"].append(_wall(api, env))
        again = subprocess.run([sys.executable, "-c", AGAIN], check=True, capture_output=True, text=True, env=env)
    cli_s, api_s = statistics.median(times["cli"]), statistics.median(times["api"])
    repeated, compiled_before = (float(word) for word in again.stdout.split()[-2:])
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs; medians of {runs} runs")
    print(f"target {TARGET} (what auto compiles for here)")
    print(f"tritonscope dump --json        {cli_s:6.2f} s  (a fresh process, start-up included)")
    print(f"first ts.dump, fresh process   {api_s:6.2f} s  ratio {api_s / cli_s:.2f}x  (goal: at most 1.2x)")
    print(f"ts.dump again                  {repeated * 1000:6.1f} ms (goal: under 50 ms)")
    print(f"a variant compiled before      {compiled_before * 1000:6.1f} ms (goal: under 50 ms)")


if __name__ == "__main__":
    main()
