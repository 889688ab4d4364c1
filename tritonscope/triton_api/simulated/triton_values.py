"""The host's values of what a Triton kernel of the program's own writes: the launch is logged
(host_values.py) with its grid and arguments, and when a value it wrote is read, the kernel runs on
the host under Triton's interpreter (`TRITON_INTERPRET`'s, on the host tensors standing for its
arguments), in its place in the log. The compiled kernel is still compiled for the target and its
launch recorded, as before. A kernel the interpreter cannot run leaves what it wrote unknown: a read
of it stops and says why. Kernels of a graph torch.compile compiled are not logged: the graph's host
run gives their outputs (compiled_values.py)."""

from __future__ import annotations

import dataclasses

DESCRIPTOR = "__tritonscope_descriptor__"


class InterpretedLaunch:
    """One launch of a JIT function, run by Triton's interpreter on host tensors."""

    __slots__ = ("fn", "grid", "name")

    def __init__(self, fn, grid, name: str) -> None:
        self.fn, self.grid, self.name = fn, grid, name

    def __call__(self, args, kwargs):
        from triton.runtime.interpreter import InterpretedFunction  # type: ignore[import-untyped]
        from triton.runtime.jit import JITFunction  # type: ignore[import-untyped]

        args, kwargs = [_rebuilt(a) for a in args], {k: _rebuilt(v) for k, v in kwargs.items()}
        called = JITFunction.__call__
        # the JIT functions it calls (tl.rand's Philox, the program's helpers) were made for the
        # compiler, not the interpreter: called from the interpreted kernel, they are interpreted too
        JITFunction.__call__ = lambda fn, *a, **k: InterpretedFunction(fn.fn)(*a, **k)
        try:
            InterpretedFunction(self.fn)[self.grid](*args, **kwargs)
        finally:
            JITFunction.__call__ = called


def _described(value):
    """A host TMA descriptor as a tuple the log can hold its base of (rebuilt at the host run)."""
    if dataclasses.is_dataclass(value) and hasattr(value, "base") and not isinstance(value, type):
        return (DESCRIPTOR, value.base, value)
    return value


def _rebuilt(value):
    if isinstance(value, tuple) and len(value) == 3 and value[0] == DESCRIPTOR:
        return dataclasses.replace(value[2], base=value[1])
    return value


def install() -> None:
    """Log each launch of a JIT function made outside a compiled graph (host_values.LOG)."""
    try:
        from triton.runtime.jit import JITFunction  # type: ignore[import-untyped]
    except ImportError:
        return
    from torch._subclasses.fake_tensor import FakeTensor

    from .host_values import LOG

    original = JITFunction.run

    def run(self, *args, grid, warmup, **kwargs):
        if warmup or LOG.suspended:
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        LOG.suspended += 1  # the launcher's own notice (driver.LAUNCHED) is this entry's
        try:
            result = original(self, *args, grid=grid, warmup=warmup, **kwargs)
        finally:
            LOG.suspended -= 1
        held = tuple(_described(a) for a in args)
        tensors = [t for a in held for t in (a[1:2] if isinstance(a, tuple) and a[:1] == (DESCRIPTOR,) else [a])]
        written = [t for t in tensors if isinstance(t, FakeTensor)]
        if written:
            name = getattr(self, "__name__", None) or getattr(self.fn, "__name__", "kernel")
            LOG.record(InterpretedLaunch(self.fn, grid, name), held, kwargs, None, FakeTensor, written)
        return result

    JITFunction.run = run
