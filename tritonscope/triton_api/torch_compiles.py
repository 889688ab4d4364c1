"""What runs inside a program traced by `tritonscope trace` that calls torch.compile: one JSON line per
frame compile (torch._dynamo compiling a Python function for a new set of guards), with the inputs it
was compiled for, the guards it was compiled with, and why the entries before it did not serve.

The hook (capture_hook/sitecustomize.py) loads this file by its path once the program imports
torch._dynamo.convert_frame, so it imports only the standard library and torch, never the rest of
tritonscope; nothing here may break the traced program: every step is guarded.

How a compile is seen (torch 2.5 on, read in torch/_dynamo/convert_frame.py and guards.py): every
frame dynamo may compile passes through `ConvertFrameAssert.__call__(frame, cache_entry, hooks,
frame_state)`, the frame's arguments in `frame.f_locals`; a compile adds an entry to the front of the
code's cache (`_debug_get_cache_entry_list`) from what it returns (`guarded_code`), whose
`compile_id` is dynamo's own ("0/4") and whose `guard_manager` prints its guards: TENSOR_MATCH with
each input's sizes (None where the size is dynamic) and the shape guards (`2 <= L['h'].size()[0]`).
Why it compiled again is what TORCH_LOGS=recompiles prints, the reasons
`get_and_maybe_log_recompilation_reasons` returns (one per entry whose guards failed), taken as it
returns them, with torch's logging left as the program set it.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
import time
from types import FrameType

MAX_GUARD_LINES = 40
MAX_INPUTS = 32
_SHAPE_GUARDS = ("TENSOR_MATCH", ".size()", ".stride()", "Eq(", "Ne(")


def install(convert_frame, log: str, append_line) -> None:
    """Wraps dynamo's frame conversion (and its recompile reasons) to log each frame compile to LOG,
    each line written with APPEND_LINE(log, record) (triton_api/capture.py's: one append each)."""
    reasons = threading.local()
    _keep_reasons(convert_frame, reasons)
    original = convert_frame.ConvertFrameAssert.__call__

    @functools.wraps(original)
    def __call__(self, frame, cache_entry, *args, **kwargs):
        reasons.last = []
        try:
            code, before, inputs, started = _named(frame), _entry_count(frame.f_code), _inputs(frame), time.time()
        except Exception:  # noqa: BLE001 - recording must never break the traced program
            return original(self, frame, cache_entry, *args, **kwargs)
        try:
            result = original(self, frame, cache_entry, *args, **kwargs)
        except BaseException as exc:  # past the recompile limit dynamo raises, and the frame runs eagerly
            if "recompile limit" in str(exc).lower():
                _eager(append_line, log, code, before, inputs, started, list(reasons.last))
            raise
        try:
            compiled = getattr(result, "guarded_code", result)  # before 2.6 the GuardedCode itself
            if getattr(compiled, "guard_manager", None) is not None:
                append_line(log, _record(code, compiled, before, inputs, started, list(reasons.last)))
        except Exception:  # noqa: BLE001
            pass
        return result

    convert_frame.ConvertFrameAssert.__call__ = __call__


def _eager(append_line, log: str, code, before: int, inputs: dict, started: float, reasons: list[str]) -> None:
    """A call past the recompile limit: logged as a record with the limit and no entry compiled."""
    try:
        record = _record(code, None, before, inputs, started, reasons)
        append_line(log, {**record, "recompile_limit": _recompile_limit() or before})
    except Exception:  # noqa: BLE001 - recording must never break the traced program
        pass


def _recompile_limit() -> int | None:
    """torch._dynamo's limit on a frame's entries, as the program set it (`cache_size_limit` before 2.6):
    past it, a call whose guards all fail runs eagerly, uncompiled (h20b: 3 sizes of 6 ran so, unsaid)."""
    from torch._dynamo import config

    limit = getattr(config, "recompile_limit", None)
    return int(limit) if isinstance(limit, int) else getattr(config, "cache_size_limit", None)


def _keep_reasons(convert_frame, reasons: threading.local) -> None:
    """The guard failures that made dynamo compile again, as its recompiles log says them."""
    original = getattr(convert_frame, "get_and_maybe_log_recompilation_reasons", None)
    if original is None:
        return

    @functools.wraps(original)
    def kept(*args, **kwargs):
        found = original(*args, **kwargs)
        try:
            reasons.last = [str(r) for r in found][:16]
        except Exception:  # noqa: BLE001
            pass
        return found

    convert_frame.get_and_maybe_log_recompilation_reasons = kept


def _entry_count(code) -> int:
    """How many entries the code's cache holds: the new one's index."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    return len(_debug_get_cache_entry_list(code))


def _inputs(frame) -> dict:
    """The frame's arguments as dynamo guards them: each tensor's sizes, strides and dtype, each int."""
    code, values = frame.f_code, frame.f_locals
    named = code.co_argcount + code.co_kwonlyargcount
    # *args and **kwargs too, as dynamo names them (args[0], kwargs['input_ids']): a Hugging Face
    # forward takes all of its inputs so, and its recompiles had no inputs to predict from
    extra = bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    found: dict[str, dict] = {}
    for name in code.co_varnames[: named + extra]:
        value = values.get(name)
        if isinstance(value, dict):
            items = [(f"[{key!r}]", item) for key, item in value.items()]
        elif isinstance(value, (list, tuple)):
            items = [(f"[{index}]", item) for index, item in enumerate(value)]
        else:
            items = [("", value)]
        for suffix, item in items:
            described = _described(item)
            if described is not None and len(found) < MAX_INPUTS:
                found[name + suffix] = described
    return found


def _described(value) -> dict | None:
    if all(hasattr(value, a) for a in ("shape", "stride", "dtype")) and callable(getattr(value, "stride", None)):
        return {"kind": "tensor", "shape": [int(n) for n in value.shape], "stride": [int(s) for s in value.stride()],
                "dtype": str(value.dtype)}  # fmt: skip
    if isinstance(value, int) and not isinstance(value, bool):
        return {"kind": "int", "value": value}
    if isinstance(value, float):  # a float's guard fails as an int's does (h20b: `a` missing from the call)
        return {"kind": "float", "value": value}
    if isinstance(value, bool):
        return {"kind": "bool", "value": value}
    return None


# Names a decorator's closure gives the function it wraps (functools.wraps keeps the name on the
# function object, not on the frame's code, which is the wrapper's)
_WRAPPERS = {"wrapper", "inner", "wrapped", "_wrapper", "decorated", "new_func", "_fn", "fn", "wrapped_fn"}


def _named(frame) -> tuple[str, str, int]:
    """(function, file, line) of the frame dynamo compiles: a decorator's wrapper (transformers'
    `wrapper` at generic.py:933 around a model's forward) named by the function its closure wraps."""
    code = frame.f_code
    if code.co_name in _WRAPPERS:
        for variable in code.co_freevars:
            wrapped = getattr(frame.f_locals.get(variable), "__wrapped__", frame.f_locals.get(variable))
            inner = getattr(wrapped, "__code__", None)
            if inner is not None and inner is not code and getattr(wrapped, "__qualname__", None):
                return f"{wrapped.__qualname__} (through {code.co_name})", inner.co_filename, inner.co_firstlineno
    return code.co_name, code.co_filename, code.co_firstlineno


def _record(code, compiled, index: int, inputs: dict, started: float, reasons: list[str]) -> dict:
    function, file, line = code
    return {
        "function": function,
        "file": file,
        "line": line,
        "compile_id": str(getattr(compiled, "compile_id", "") or ""),
        "entry": index,
        "time": started,
        "seconds": round(time.time() - started, 4),
        "pid": os.getpid(),
        "inputs": inputs,
        "reasons": reasons,
        "guards": _shape_guards(compiled),
        "call_site": _call_site(),
        **_limit(),
    }


def _limit() -> dict:
    """The program's recompile_limit as this entry compiled, where torch says it: the prediction of the
    compiles to come stops there (it said torch's default, 8, whatever the program set)."""
    try:
        limit = _recompile_limit()
    except Exception:  # noqa: BLE001 - recording must never break the traced program
        return {}
    return {"limit": limit} if isinstance(limit, int) and limit > 0 else {}


def _shape_guards(compiled) -> list[str]:
    """The new entry's guards on sizes, as dynamo prints them: TENSOR_MATCH lines and the shape guards."""
    text = str(getattr(compiled, "guard_manager", ""))
    lines = [line.split("  # ")[0].strip(" |+-") for line in text.splitlines() if any(k in line for k in _SHAPE_GUARDS)]
    # the bounds and the inputs' sizes first, a module's weights last: a model's weights (each a
    # TENSOR_MATCH of its fixed size) took every line there was room for, and its `2 <= ...` with them
    lines.sort(key=lambda line: ("TENSOR_MATCH" in line) + ("_modules[" in line or "._parameters[" in line))
    return [line[:400] for line in lines[:MAX_GUARD_LINES]]


def _call_site() -> dict | None:
    """The program's line that called the compiled function: the innermost frame outside torch and this file."""
    torch_folder = os.path.dirname(os.path.abspath(sys.modules["torch"].__file__ or "")) + os.sep
    here = os.path.abspath(__file__)
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        file = os.path.abspath(frame.f_code.co_filename)
        if not frame.f_code.co_filename.startswith("<") and not file.startswith(torch_folder) and file != here:
            return {"file": frame.f_code.co_filename, "line": frame.f_lineno, "function": frame.f_code.co_name}
        frame = frame.f_back
    return None
