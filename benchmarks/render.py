"""What drawing a dump in the terminal costs over printing its JSON, measured in one run.

`tritonscope dump sample:fused_attention --target sm90` with every stage, in colour at 120
columns (as on a terminal, but into a pipe), against the same command with `--json`, both on
a warm Triton cache (filled before the first timed run). The two commands run in turns, so
drift in machine load hits both alike; the figures are medians. Target: the terminal output
takes at most 1.5x the JSON.

It also prints when the first screen (60 lines) of the terminal output arrived: rows stream
out as they are drawn, so a pager shows them long before the last stage is ready.

Run: python benchmarks/render.py [--runs N] [--sample NAME]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import installed

SCREEN = 60  # lines


def command(sample: str, json_out: bool) -> list[str]:
    dump = [sys.executable, "-m", "tritonscope", "--no-pager", "dump", f"sample:{sample}", "--target", "sm90"]
    return dump + (["--json"] if json_out else [])


CPU: dict[bool, list[float]] = {True: [], False: []}  # CPU seconds of each run: the terminal view (True), --json


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(seconds to the end, seconds to the first screen of output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    first = None
    with subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as process:
        for count, _ in enumerate(process.stdout, start=1):
            if count == SCREEN:
                first = time.perf_counter() - started
    total = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU["--json" not in argv].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed with exit code {process.returncode}")
    return total, first if first is not None else total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--sample", default="fused_attention")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        env = installed.environ(TRITON_CACHE_DIR=cache, COLUMNS="120")
        env.pop("NO_COLOR", None)
        terminal_env = {**env, "FORCE_COLOR": "1"}
        json_cmd, terminal_cmd = command(args.sample, True), command(args.sample, False)
        timed(json_cmd, env)  # fills the cache
        timed(terminal_cmd, terminal_env)
        CPU[True].clear(), CPU[False].clear()  # the filling runs are not timed
        json_times, terminal_times, first_screens = [], [], []
        for _ in range(args.runs):
            json_times.append(timed(json_cmd, env)[0])
            total, first = timed(terminal_cmd, terminal_env)
            terminal_times.append(total)
            first_screens.append(first)
    json_s, terminal_s = statistics.median(json_times), statistics.median(terminal_times)
    print(f"dump sample:{args.sample} --target sm90, warm cache, medians of {args.runs} runs in turns")
    print(f"  --json:                          {json_s:.2f} s")
    print(f"  terminal (colour, 120 columns):  {terminal_s:.2f} s")
    print(f"  first screen of it:              {statistics.median(first_screens):.2f} s")
    print(f"ratio terminal / --json: {terminal_s / json_s:.2f}x (target: at most 1.5x); {installed.load()}")
    cpu_terminal, cpu_json = statistics.median(CPU[True]), statistics.median(CPU[False])
    print(f"CPU: terminal {cpu_terminal:.2f} s, --json {cpu_json:.2f} s: {cpu_terminal / cpu_json:.2f}x")


if __name__ == "__main__":
    main()
