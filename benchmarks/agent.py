"""The agent server's speed, measured in one run (medians), with a warm Triton cache:

1. cold: a server just started (its handshake done, nothing compiled or kept yet) asked for a
   `dump`, against `tritonscope dump --json` of the same variant as a process. Target: at most
   1.2x. Also the whole, from the server's start to that answer (the SDK's import, ~2 s of CPU, is
   paid once per agent session, while the worker starts beside it).
2. warm: the same server asked again for the dump of a variant it has compiled. Target: under 50 ms.
   Also a warm answer of `dump` at one Python line, and of `explain`, for scale.

The server and the command run in turns, so that drift in machine load hits both alike.

Run: python benchmarks/agent.py [--runs N] [--sample NAME]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def dump_json(sample: str) -> float:
    command = [sys.executable, "-m", "tritonscope", "dump", f"sample:{sample}", "--target", "sm90", "--json"]
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


async def served(sample: str, warm_runs: int) -> tuple[float, float, dict[str, float]]:
    """Seconds from the server's start to its first dump answer, and of that call alone; then the
    median of warm answers of each case."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "tritonscope", "mcp"], env=dict(os.environ))
    asked = {"kernel_file": f"sample:{sample}", "target": "sm90"}
    started = time.perf_counter()
    async with Client(params, read_timeout_seconds=600, cache=None) as client:
        called = time.perf_counter()
        first = await client.call_tool("dump", asked)
        answered = time.perf_counter()
        assert not first.is_error, first.content[0].text
        at_line = {**asked, "line": _a_line(first.structured_content)}
        cases = {"dump": ("dump", asked), "dump of a line": ("dump", at_line), "explain": ("explain", asked)}
        warm = {}
        for name, (tool, arguments) in cases.items():
            await client.call_tool(tool, arguments)  # computed once; the runs below are answered warm
            times = []
            for _ in range(warm_runs):
                began = time.perf_counter()
                answer = await client.call_tool(tool, arguments)
                times.append(time.perf_counter() - began)
                assert not answer.is_error, answer.content[0].text
            warm[name] = statistics.median(times)
    return answered - started, answered - called, warm


def _a_line(document: dict) -> int:
    kernel = document["kernel"]
    return kernel["first_line"] + kernel["source"].count("\n") // 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sample", default="matmul")
    options = parser.parse_args()
    dump_json(options.sample)  # Triton's cache holds the kernel from here on
    cli, whole, first, warm_all = [], [], [], []
    for _ in range(options.runs):
        cli.append(dump_json(options.sample))
        from_start, call, warm = anyio.run(served, options.sample, 10)
        whole.append(from_start)
        first.append(call)
        warm_all.append(warm)
    command = statistics.median(cli)
    print(f"sample:{options.sample}, sm90, warm Triton cache, medians of {options.runs} runs")
    print(f"dump --json (a process):              {command * 1000:8.0f} ms")
    for label, values in (("cold server, its first dump:", first), ("from the server's start:", whole)):
        value = statistics.median(values)
        print(f"{label:<38}{value * 1000:8.0f} ms  ({value / command:.2f}x of dump --json)")
    for name in warm_all[0]:
        value = statistics.median(w[name] for w in warm_all)
        target = "  (target: under 50 ms)" if name == "dump" else ""
        print(f"{'warm server, ' + name + ':':<38}{value * 1000:8.1f} ms{target}")


if __name__ == "__main__":
    main()
