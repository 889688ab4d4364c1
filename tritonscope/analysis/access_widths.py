"""The narrowest global load and store of a compile, as `check`'s budgets and baselines hold them: the
machine code's, less those of the Python lines whose every global access is a scalar's (one element for
the whole program, `tl.load(scale_ptr + row)`), which no hint, block size or layout can make wider."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.stages import Stage
from ..core.targets import Target
from . import instruction_mix, ttgir

SourceLine = tuple[str, int]
# Keyed by Stage (a Compilation's) or its name (a JSON report's)
Stages = Mapping[Any, str]
LineMap = Mapping[Any, Mapping[int, Iterable[SourceLine]]]  # stage -> {its line: the Python lines}

_ACCESS = re.compile(r"\b(?:" + "|".join(re.escape(op) for op in ttgir.MEMORY_OPS) + r")\b")


def narrowest(target: Target, stages: Stages, line_map: LineMap) -> dict[str, int | None]:
    """{"global_load_bits": ..., "global_store_bits": ...}: bits per thread, None where there is none."""
    machine = target.vendor.machine_code
    scalar = _scalar_lines(stages.get(Stage.TTGIR, ""), line_map.get(Stage.TTGIR, {}))
    on_scalar_lines = _machine_lines(line_map.get(machine, {}), scalar)
    loads, stores = [], []
    for number, op in instruction_mix.classify(machine, stages.get(machine, "")):
        if number in on_scalar_lines:
            continue
        if op.kind in ("global_load", "async_copy"):
            loads.append(op.width)
        elif op.kind == "global_store":
            stores.append(op.width)
    return {"global_load_bits": min(loads, default=None), "global_store_bits": min(stores, default=None)}


def _scalar_lines(text: str, ttgir_map: Mapping[int, Iterable[SourceLine]]) -> set[SourceLine]:
    """The Python lines whose TTGIR global accesses are all of scalars (no tensor in their types)."""
    tensor: dict[SourceLine, bool] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if _ACCESS.search(line):
            for where in ttgir_map.get(number, ()):
                tensor[where] = tensor.get(where, False) or "tensor<" in line
    return {where for where, any_tensor in tensor.items() if not any_tensor}


def _machine_lines(machine_map: Mapping[int, Iterable[SourceLine]], scalar: set[SourceLine]) -> set[int]:
    """The machine-code lines every Python line of which is a scalar-only one."""
    found = set()
    for number, wheres in machine_map.items():
        wheres = list(wheres)
        if wheres and all(where in scalar for where in wheres):
            found.add(number)
    return found
