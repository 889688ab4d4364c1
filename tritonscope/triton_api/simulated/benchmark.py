"""The answer every benchmark gets on a simulated GPU: the same time for every candidate.

The candidate is still called once, so that it is compiled (and its launch recorded) as on a
GPU, where the autotuner compiles every config before timing it. With equal times, Triton's
autotuner and torch.compile's both keep the first candidate: that is the rule a capture states.
"""

from __future__ import annotations

SIMULATED_MS = 1.0
RULE = "first config: with no GPU every candidate gets the same time, and the autotuner keeps the first"


def call_once(fn) -> None:
    fn()


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean", **kwargs):
    """triton.testing.do_bench's signature and result shape; the time is SIMULATED_MS."""
    call_once(fn)
    if quantiles is not None:
        return [SIMULATED_MS] * len(quantiles)
    return SIMULATED_MS
