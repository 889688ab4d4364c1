"""What a compiled kernel can do that Triton's interpreter cannot, filled in for a kernel run on the
host (triton_values.py, the values of a simulated GPU): real kernels, Liger's RMSNorm among them,
stopped a trace there.

- A float argument is an fp32 scalar tensor in a compiled kernel (`eps.to(tl.float32)`); the
  interpreter makes tensors of int arguments only, and passes a float as it is.
- libdevice's functions (`from triton.language.extra.libdevice import rsqrt`) are stubs the compiler
  replaces; the interpreter has no extern calls ("extern_elementwise not supported"). Where
  triton.language.math has the function of that name, the kernel's globals get it for the run.
"""

from __future__ import annotations

import sys
import types
from typing import Any

_LIBDEVICE = ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice")


class Filled:
    """A context for one interpreted launch: floats made fp32 tensors while it runs, and the globals of
    each function given to `libdevice_in` given tl.math's functions for libdevice's, put back after."""

    def __init__(self) -> None:
        self._swapped: list[tuple[dict, str, Any]] = []
        self._done: set[int] = set()
        self._convert: Any = None

    def __enter__(self) -> Filled:
        import numpy as np
        import triton.language as tl  # type: ignore[import-untyped]
        from triton.runtime import interpreter  # type: ignore[import-untyped]

        original = self._convert = interpreter._implicit_cvt

        def converted(arg):
            if isinstance(arg, float):
                return tl.tensor(interpreter.TensorHandle(np.array([arg], dtype=np.float32), tl.float32), tl.float32)
            return original(arg)

        interpreter._implicit_cvt = converted
        return self

    def __exit__(self, *exc) -> None:
        from triton.runtime import interpreter  # type: ignore[import-untyped]

        interpreter._implicit_cvt = self._convert
        for names, name, value in reversed(self._swapped):
            names[name] = value
        self._swapped.clear()

    def libdevice_in(self, fn: Any) -> None:
        names = getattr(fn, "__globals__", None)
        if names is None or id(names) in self._done:
            return
        self._done.add(id(names))
        stubs = _stubs()
        for name, value in list(names.items()):
            if isinstance(value, types.ModuleType) and value.__name__ in _LIBDEVICE:
                self._swap(names, name, _Library(value))
            elif callable(value) and id(value) in stubs:
                self._swap(names, name, _math(stubs[id(value)], value))

    def _swap(self, names: dict, name: str, value: Any) -> None:
        self._swapped.append((names, name, names[name]))
        names[name] = value


def _stubs() -> dict[int, str]:
    """libdevice's functions, by identity, with their names."""
    found = {}
    for module_name in _LIBDEVICE:
        module = sys.modules.get(module_name)
        for name, value in vars(module).items() if module else ():
            if callable(value) and not name.startswith("_"):
                found[id(value)] = name
    return found


def _math(name: str, stub: Any) -> Any:
    """tl.math's function of that name as the interpreter has patched it when called (looked up then:
    the interpreter patches tl.math for each run), else the stub as it was."""
    import triton.language as tl  # type: ignore[import-untyped]

    if not hasattr(tl.math, name):
        return stub
    return lambda *args, **kwargs: getattr(tl.math, name)(*args, **kwargs)


class _Library:
    """A libdevice module seen through `_math`: `libdevice.rsqrt(x)` as tl.math.rsqrt."""

    def __init__(self, module: types.ModuleType) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        return _math(name, getattr(self._module, name))
