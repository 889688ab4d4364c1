"""Which config each autotuned kernel launched on the simulated GPU, and why: one JSON line each.

Every candidate is compiled, as on a GPU; with no GPU to time them, every candidate gets the
same time (benchmark.py) and the autotuner keeps the first. A GPU run may keep another: the
capture says so, line by line, in autotune.jsonl (TRITONSCOPE_AUTOTUNE_LOG). Triton's own
Autotuner and torch.compile's CachingAutotuner are both followed.
"""

from __future__ import annotations

import functools
import json
import os

from . import benchmark


def _write(record: dict) -> None:
    log = os.environ.get("TRITONSCOPE_AUTOTUNE_LOG")
    if not log:
        return
    line = json.dumps({**record, "rule": benchmark.RULE}, default=str) + "\n"
    descriptor = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line.encode())  # one append: lines of several processes never interleave
    finally:
        os.close(descriptor)


def _follow_triton() -> None:
    from triton.runtime.autotuner import Autotuner  # type: ignore[import-untyped]

    original = Autotuner.run

    @functools.wraps(original)  # keeps the original as __wrapped__
    def run(self, *args, **kwargs):
        before = len(getattr(self, "cache", {}))
        result = original(self, *args, **kwargs)
        if len(getattr(self, "cache", {})) > before and len(self.configs) > 1:
            name = getattr(getattr(self, "base_fn", None), "__name__", None) or str(self.fn)
            _write(
                {
                    "kernel": name,
                    "by": "triton.autotune",
                    "candidates": [str(c) for c in self.configs],
                    "chosen": str(self.best_config),
                }
            )
        return result

    Autotuner.run = run


def _follow_inductor() -> None:
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    original = CachingAutotuner.autotune_to_one_config

    def autotune_to_one_config(self, *args, **kwargs):
        candidates = [str(launcher.config) for launcher in self.launchers]
        result = original(self, *args, **kwargs)
        if len(candidates) > 1 and self.launchers:
            name = self.inductor_meta.get("kernel_name") or getattr(self.fn, "__name__", "?")
            _write(
                {
                    "kernel": name,
                    "by": "torch.compile",
                    "candidates": candidates,
                    "chosen": str(self.launchers[0].config),
                }
            )
        return result

    CachingAutotuner.autotune_to_one_config = autotune_to_one_config  # type: ignore[method-assign]


def install() -> None:
    try:
        _follow_triton()
    except (ImportError, AttributeError):
        pass
    try:
        _follow_inductor()
    except (ImportError, AttributeError):
        pass
