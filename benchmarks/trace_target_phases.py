"""Runs a program as `python PROGRAM ARGS...` would, and at its exit writes where its time went, as
JSON, to the file named by TRACE_TARGET_PHASES: benchmarks/trace_target.py traces
`python trace_target_phases.py PROGRAM` (runpy adds milliseconds) to split the trace's wall time.

- `started`: seconds from the process's start to this file's first line: Python's start-up and the
  capture hook, which imports torch and starts the simulated GPU before any program line runs;
- `run`: seconds from there to the program's exit handlers;
- `dynamo`: seconds torch.compile reports for its own compiles (Dynamo tracing, AOT autograd,
  Inductor lowering and code generation, the Triton compiles it waits for): the compiles of
  frames, and the backward graphs' compiles, which AOT autograd makes later, at the first
  backward, outside them;
- `triton_in_dynamo` / `triton_outside`: Triton's own compile times (as the capture records them)
  made inside torch.compile's compiles and outside them (eager launches, runtime autotuning).
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import sys
import time


def _age() -> float:
    """Seconds since this process started (Linux: /proc/self/stat's start time, in clock ticks)."""
    with open("/proc/self/stat") as handle:
        started = int(handle.read().rsplit(")", 1)[1].split()[19])
    return time.clock_gettime(time.CLOCK_BOOTTIME) - started / os.sysconf("SC_CLK_TCK")


STARTED, ZERO = _age(), time.perf_counter()
_triton = {"triton_in_dynamo": 0.0, "triton_outside": 0.0}


def _in_torch_compile() -> bool:
    utils = sys.modules.get("torch._dynamo.utils")
    context = getattr(utils, "get_metrics_context", None)
    return bool(context and context().in_progress())


def _follow_triton_compiles() -> None:
    try:
        from triton import knobs
    except ImportError:
        return
    previous = knobs.compilation.listener

    def listener(*, src, metadata, metadata_group, times, cache_hit):
        seconds = (times.ir_initialization + times.total_lowering + times.store_results) / 1e6
        _triton["triton_in_dynamo" if _in_torch_compile() else "triton_outside"] += seconds
        if previous is not None:
            previous(src=src, metadata=metadata, metadata_group=metadata_group, times=times, cache_hit=cache_hit)

    knobs.compilation.listener = listener


def _dynamo_seconds() -> float:
    utils = sys.modules.get("torch._dynamo.utils")
    metrics = getattr(utils, "compilation_time_metrics", {})
    frames = metrics.get("_compile.compile_inner", metrics.get("_compile", []))
    return sum(frames) + sum(metrics.get("backward._backward_impl", []))


def _write() -> None:
    phases = {"started": STARTED, "run": time.perf_counter() - ZERO, "dynamo": _dynamo_seconds(), **_triton}
    with open(os.environ["TRACE_TARGET_PHASES"], "w") as handle:
        json.dump(phases, handle)


if __name__ == "__main__":
    _follow_triton_compiles()
    atexit.register(_write)  # registered after the simulated GPU's exit handler, so it runs before it
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
    runpy.run_path(sys.argv[0], run_name="__main__")
