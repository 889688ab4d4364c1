"""Runs a captured launch again in this process, for `bench DIR/:KERNEL` and `bench FILE --launch`.

The reproducer script of app/reproduce.py is the one description of how a captured launch is
made again: it is run here as a module (not as __main__), and its `prepare` and `value`
functions make the compiled kernel and the arguments.
"""

from __future__ import annotations

import types
from typing import Any

from ..core.errors import UsageError
from .runtime import do_bench


def script_module(text: str) -> types.ModuleType:
    """The reproducer script, executed as a module named tritonscope_replay."""
    module = types.ModuleType("tritonscope_replay")
    exec(compile(text, "<tritonscope reproduce>", "exec"), module.__dict__)  # noqa: S102 - our own generated script
    return module


def time_captured(script: types.ModuleType) -> tuple[float, bool]:
    """(median ms of the captured kernel compiled as captured, does its assembly hash match the capture's)."""
    compiled, args, matched, _ = script.prepare()
    launch = compiled[script.GRID]
    return do_bench(lambda: launch(*args)), matched


def time_jit(jit: Any, script: types.ModuleType, options: dict[str, int]) -> float:
    """Median ms of a file's kernel launched as the JIT launches it, with the captured launch's
    arguments by parameter name and grid, and the captured options."""
    script.torch.manual_seed(script.SEED)
    names = list(jit.arg_names)
    arguments = dict(zip(script.PARAMS, (script.value(d) for d in script.ARGS), strict=True))
    missing = [n for n in names if n not in arguments]
    if missing:
        raise UsageError(f"the captured launch has no value for {', '.join(missing)} of {jit.__name__}")
    kwargs = {n: arguments[n] for n in names}
    grid = tuple(script.GRID)
    jit[grid](**kwargs, **options)
    return do_bench(lambda: jit[grid](**kwargs, **options))
