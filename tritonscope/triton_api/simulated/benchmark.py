"""The answer a benchmark gets on a simulated GPU: a fixed time, with no GPU to measure one.

The candidate is still called once, so that it is compiled (and its launch recorded) as on a
GPU, where the autotuner compiles every config before timing it. Every benchmark reports
SIMULATED_MS; for the autotuners that autotune.py follows, the candidate the `--autotune` rule
picks keeps SIMULATED_MS and the others get twice it, so the autotuner keeps the picked one.
"""

from __future__ import annotations

SIMULATED_MS = 1.0


def call_once(fn) -> None:
    fn()


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean", **kwargs):
    """triton.testing.do_bench's signature and result shape; the time is SIMULATED_MS."""
    call_once(fn)
    if quantiles is not None:
        return [SIMULATED_MS] * len(quantiles)
    return SIMULATED_MS
