"""The shapes of the JSON files tritonscope reads, each checked in one place before use.

A capture's logs (kernels.jsonl, launches.jsonl), Triton's metadata of a cache entry and a saved
`dump --json` report (a baseline) come from other programs, other releases, or a damaged disk.
Each is parsed with `parse` (deep nesting is a problem, not a crash) and checked with `problem`
against its shape below; a problem names the field (`args[2].shape[0]`) and what it should be.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any


class Invalid(ValueError):
    """A file's text that is not the JSON, or not the shape, it should be."""


@dataclass(frozen=True)
class Opt:
    """The value may also be null."""

    spec: Any


@dataclass(frozen=True)
class Map:
    """An object of any keys (each matching `key`, a regex) with values of `value`."""

    value: Any
    key: str = r".*"


@dataclass(frozen=True)
class Check:
    """A value `test` accepts, described as `what`."""

    test: Any
    what: str


_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false", dict: "an object",
          list: "a list"}  # fmt: skip
NUMBER = (int, float)
MAX_DEPTH = 64  # deeper than any file tritonscope writes


def parse(text: str) -> Any:
    """JSON text as data; Invalid when it is not JSON or nests deeper than Python can parse."""
    try:
        return json.loads(text)
    except RecursionError:
        raise Invalid("nested too deeply to read") from None
    except ValueError as exc:
        raise Invalid(f"not JSON ({exc})") from None


def problem(value: Any, spec: Any, where: str = "", depth: int = 0) -> str | None:
    """What is wrong with `value` against `spec` (naming the field), or None."""
    if depth > MAX_DEPTH:
        return f"{where or 'the value'}: nested too deeply"
    if isinstance(spec, Opt):
        return None if value is None else problem(value, spec.spec, where, depth)
    if isinstance(spec, dict):
        return _object(value, spec, where, depth)
    if isinstance(spec, Map):
        return _map(value, spec, where, depth)
    if isinstance(spec, list):
        return _list(value, spec[0], where, depth)
    if isinstance(spec, Check):
        return None if spec.test(value) else f"{where or 'the value'} must be {spec.what}"
    kinds = spec if isinstance(spec, tuple) else (spec,)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        wanted = " or ".join(_NAMES.get(k, k.__name__) for k in kinds)
        return f"{where or 'the value'} must be {wanted}, not {_shown(value)}"
    return None


def _object(value: Any, spec: dict, where: str, depth: int) -> str | None:
    if not isinstance(value, dict):
        return f"{where or 'the value'} must be an object, not {_shown(value)}"
    for key, field_spec in spec.items():
        name = key.rstrip("?")
        if name not in value:
            if key.endswith("?"):
                continue
            return f"{_join(where, name)} is missing"
        found = problem(value[name], field_spec, _join(where, name), depth + 1)
        if found:
            return found
    return None


def _map(value: Any, spec: Map, where: str, depth: int) -> str | None:
    if not isinstance(value, dict):
        return f"{where or 'the value'} must be an object, not {_shown(value)}"
    for key, item in value.items():
        if not re.fullmatch(spec.key, key):
            return f"{where or 'the value'} has a malformed key {key[:40]!r}"
        found = problem(item, spec.value, _join(where, key), depth + 1)
        if found:
            return found
    return None


def _list(value: Any, item_spec: Any, where: str, depth: int) -> str | None:
    if not isinstance(value, list):
        return f"{where or 'the value'} must be a list, not {_shown(value)}"
    for index, item in enumerate(value):
        found = problem(item, item_spec, f"{where}[{index}]", depth + 1)
        if found:
            return found
    return None


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _shown(value: Any) -> str:
    kind = {dict: "an object", list: "a list", str: "a string", type(None): "null", bool: "true or false"}
    return kind.get(type(value), f"{type(value).__name__} {str(value)[:20]}")


# --- the formats --------------------------------------------------------------------------------

PATH_KEY = r"\(\s*\d+\s*(,\s*\d+\s*)*,?\s*\)"  # Triton's key of a parameter: "(3,)", "(0, 1)"
COMPILE_RECORD = {
    "hash": str,
    "name?": Opt(str),
    "file?": Opt(str),
    "first_line?": Opt(int),
    "source?": Opt(str),
    "module?": Opt(str),
    "environment?": Map(str),
    "globals?": dict,
    "constant_values?": Map(dict),
    "signature?": Map(str),
    "constants?": Map(str, PATH_KEY),
    "attrs?": Map([[Check(lambda a: isinstance(a, (str, int, float, bool)) or a is None, "a name or value")]],
                  PATH_KEY),
    "time?": NUMBER,
    "pid?": int,
    "options?": Map(int),
    "compile_us?": NUMBER,
}  # fmt: skip


def _argument_ok(arg: Any, depth: int = 0) -> bool:
    if problem(arg, _ARGUMENT) is not None:
        return False
    if arg["kind"] == "tensor":
        return problem(arg, _TENSOR) is None
    if arg["kind"] == "tuple":
        return depth < 8 and all(_argument_ok(a, depth + 1) for a in arg.get("items", []))
    return True


_TENSOR = {"kind": str, "shape": [int], "stride?": [int], "dtype": str, "device?": str, "storage_offset?": int}
_ARGUMENT = {"kind": str, "items?": list, "base?": _TENSOR, "shape?": [int], "stride?": [int], "strides?": [int],
             "block_shape?": [int], "dtype?": str, "type?": str}  # fmt: skip
ARGUMENT = Check(_argument_ok, "an argument record: an object with its kind (a tensor with its shape and dtype)")
LAUNCH_RECORD = {
    "hash": str,
    "name?": Opt(str),
    "launch?": int,
    "grid": Check(lambda g: isinstance(g, list) and len(g) == 3 and all(type(n) is int for n in g), "3 integers"),
    "params?": Opt([str]),
    "args": [ARGUMENT],
    "pid?": int,
    "time?": NUMBER,
    "timing?": bool,  # an autotuner timing its candidates launched it (triton_api/capture.py: Recorder)
}
_CALL_SITE = Opt({"file": str, "line": int})
MARK_RECORD = {"mark": str, "time": NUMBER, "pid?": int, "via?": str, "call_site?": _CALL_SITE}
_COMPILED_INPUT = {"kind": str, "shape?": [int], "stride?": [int], "dtype?": str, "value?": (int, float, bool)}
TORCH_COMPILE_RECORD = {
    "function": str,
    "file?": str,
    "line?": int,
    "compile_id?": str,
    "entry?": int,
    "time": NUMBER,
    "seconds?": NUMBER,
    "pid?": int,
    "inputs": Map(_COMPILED_INPUT),
    "reasons": [str],
    "guards": [str],
    "call_site?": _CALL_SITE,
    "limit?": int,  # torch._dynamo's recompile_limit as the program set it when this entry compiled
    "recompile_limit?": int,  # a call past torch._dynamo's recompile_limit: nothing compiled, it ran eagerly
}
METADATA = {
    "name": str,
    "hash?": str,
    "target": {"backend": str, "arch": (int, str), "warp_size": int},
    "num_warps": int,
    "num_stages?": int,
    "num_ctas?": int,
    "shared?": int,
    "triton_version?": str,
}
BASELINE = {
    "resources": {
        "registers": NUMBER,
        "spills": NUMBER,
        "local_bytes": NUMBER,
        "stack_bytes": NUMBER,
        "shared_bytes": NUMBER,
        "occupancy": {"percent": NUMBER},
    },
    "variant": {"target": str, "kernel": str},
    "stages": Map(str),
}
