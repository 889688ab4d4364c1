"""Which config each autotuned kernel launches on the simulated GPU, and why: one JSON line each.

Every candidate is compiled, as on a GPU, where the autotuner compiles each config before timing
it. With no GPU to time them, a rule picks one: the first (the default), the last, the one at an
index, or the first with given settings (`trace --autotune`, passed as JSON in
TRITONSCOPE_AUTOTUNE_RULE). The picked candidate is given the shortest time (benchmark.py's),
the others twice that, so the autotuner itself keeps it and launches it. A kernel that has no
candidate the rule names keeps its first, and its line says so (`matched`: false), as does one
whose named candidate failed (the autotuner keeps the first that did not). A GPU run may keep another: the
capture says so, line by line, in autotune.jsonl (TRITONSCOPE_AUTOTUNE_LOG). Triton's own
Autotuner and torch.compile's CachingAutotuner are both followed.
"""

from __future__ import annotations

import functools
import json
import math
import os

from . import benchmark
from .after_import import after_import
from .shared import contract


@functools.cache
def _rule() -> dict:
    text = os.environ.get(contract.ENV_AUTOTUNE_RULE)  # core/autotune_rule.py writes it
    return json.loads(text) if text else {"kind": "first", "index": 0, "settings": {}, "given": "first"}


def _settings(config) -> dict[str, str]:
    """A config's settings as its autotuner prints them (`BLOCK_M: 128, num_warps: 4, ...`)."""
    pairs = (item.partition(": ") for item in str(config).split(", "))
    return {name.strip(): value.strip() for name, _, value in pairs}


def pick(configs: list) -> int | None:
    """The index of the candidate the rule names among CONFIGS, or None when it names none."""
    rule = _rule()
    if rule["kind"] == "first":
        return 0
    if rule["kind"] == "last":
        return len(configs) - 1
    if rule["kind"] == "index":
        return rule["index"] if rule["index"] < len(configs) else None
    wanted = rule["settings"].items()
    return next((i for i, c in enumerate(configs) if wanted <= _settings(c).items()), None)


def describe() -> str:
    """How the choice was made, in one sentence (`cache list` shows it)."""
    rule = _rule()
    which = {
        "first": "first config",
        "last": "last config",
        "index": f"config {rule['index']} (from 0)",
        "config": f"the first config with {', '.join(f'{k}: {v}' for k, v in rule['settings'].items())}",
    }[rule["kind"]]
    default = ", the default" if rule["kind"] == "first" else ""
    given = f"--autotune {rule['given']}{default}"
    return f"{which} ({given}): with no GPU to time the candidates, it was given the shortest time, so it was kept"


def simulated_time(configs: list, config, measured):
    """The time a benchmark of CONFIG reports: the shortest for the rule's candidate (the first when
    the rule names none), twice that for the others; a candidate the autotuner found failed (an
    infinite time: out of resources, too many spills) stays failed. Same shape as MEASURED."""
    values = measured if isinstance(measured, (list, tuple)) else [measured]
    if any(isinstance(v, float) and math.isinf(v) for v in values) or config not in configs:
        return measured
    chosen = pick(configs)
    seconds = benchmark.SIMULATED_MS * (1 if configs.index(config) == (chosen or 0) else 2)
    return [seconds] * len(values) if isinstance(measured, (list, tuple)) else seconds


def _write(candidates: list, chosen, record: dict) -> None:
    log = os.environ.get(contract.ENV_AUTOTUNE_LOG)
    if not log:
        return
    index = candidates.index(chosen) if chosen in candidates else None
    record = {**record, "candidates": [str(c) for c in candidates], "chosen": str(chosen), "chosen_index": index}
    record.update(rule=describe(), matched=index is not None and pick(candidates) == index)
    line = json.dumps(record, default=str) + "\n"
    descriptor = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line.encode())  # one append: lines of several processes never interleave
    finally:
        os.close(descriptor)


def _follow_triton() -> None:
    from triton.runtime.autotuner import Autotuner  # type: ignore[import-untyped]

    original_run, original_prune, original_bench = Autotuner.run, Autotuner.prune_configs, Autotuner._bench

    @functools.wraps(original_prune)
    def prune_configs(self, *args, **kwargs):
        self._tritonscope_candidates = list(original_prune(self, *args, **kwargs))  # what is compiled and timed
        return self._tritonscope_candidates

    @functools.wraps(original_bench)
    def _bench(self, *args, config, **kwargs):
        measured = original_bench(self, *args, config=config, **kwargs)
        return simulated_time(getattr(self, "_tritonscope_candidates", self.configs), config, measured)

    @functools.wraps(original_run)  # keeps the original as __wrapped__
    def run(self, *args, **kwargs):
        before = len(getattr(self, "cache", {}))
        result = original_run(self, *args, **kwargs)
        candidates = getattr(self, "_tritonscope_candidates", self.configs)
        if len(getattr(self, "cache", {})) > before and len(candidates) > 1:
            name = getattr(getattr(self, "base_fn", None), "__name__", None) or str(self.fn)
            _write(candidates, self.best_config, {"kernel": name, "by": "triton.autotune"})
        return result

    Autotuner.run, Autotuner.prune_configs, Autotuner._bench = run, prune_configs, _bench


def _follow_inductor(heuristics) -> None:
    CachingAutotuner = getattr(heuristics, "CachingAutotuner", None)
    if CachingAutotuner is None:  # a torch release without it: nothing to follow
        return
    original_tune, original_bench = CachingAutotuner.autotune_to_one_config, CachingAutotuner.bench

    def bench(self, launcher, *args, **kwargs):
        measured = original_bench(self, launcher, *args, **kwargs)
        configs = [candidate.config for candidate in self.launchers]
        return simulated_time(configs, launcher.config, measured)

    def autotune_to_one_config(self, *args, **kwargs):
        candidates = [launcher.config for launcher in self.launchers]
        result = original_tune(self, *args, **kwargs)
        if len(candidates) > 1 and self.launchers:
            name = self.inductor_meta.get("kernel_name") or ""
            if not name or name.startswith("Placeholder."):  # a max-autotune template benchmarked before its
                name = getattr(self.fn, "__name__", "?")  # name is given: as its compiles are named
            _write(candidates, self.launchers[0].config, {"kernel": name, "by": "torch.compile"})
        return result

    CachingAutotuner.bench = bench  # type: ignore[method-assign]
    CachingAutotuner.autotune_to_one_config = autotune_to_one_config  # type: ignore[method-assign]


def install() -> None:
    try:
        _follow_triton()
    except (ImportError, AttributeError):
        pass
    # when torch.compile imports it: 0.04 s a program that never calls torch.compile need not pay
    after_import("torch._inductor.runtime.triton_heuristics", _follow_inductor)
