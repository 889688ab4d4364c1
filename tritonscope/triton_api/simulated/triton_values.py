"""The host's values of what a Triton kernel of the program's own writes: the launch is logged
(host_values.py) with its grid and arguments, and when a value it wrote is read, the kernel runs on
the host under Triton's interpreter (`TRITON_INTERPRET`'s, on the host tensors standing for its
arguments), in its place in the log. The compiled kernel is still compiled for the target and its
launch recorded, as before. A kernel the interpreter cannot run leaves what it wrote unknown: a read
of it stops and says why. Kernels of a graph torch.compile compiled are not logged: the graph's host
run gives their outputs (compiled_values.py)."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import os
import sys
import time
import types

from . import interpreter_gaps
from .shared import contract
from .tokens import Unknown

DESCRIPTOR = "__tritonscope_descriptor__"
# Triton's interpreter runs a kernel one program at a time in Python, a million times slower than the
# GPU: a loss over a 32,000-word vocabulary for 8,192 tokens would take hours. A launch projected to
# take longer than this (from its first programs' pace; ENV_HOST_SECONDS) is not run: what it wrote is unknown, and a
# read of it stops saying so, rather than the trace seeming to hang.
HOST_SECONDS = float(os.environ.get(contract.ENV_HOST_SECONDS, "120"))
_PROJECT_AFTER = 2.0  # seconds of interpreting before the pace is trusted for a projection


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
        gaps = interpreter_gaps.Filled()

        def helper(fn, *a, **k):
            gaps.libdevice_in(fn.fn)
            return InterpretedFunction(fn.fn)(*a, **k)

        JITFunction.__call__ = helper
        try:
            with _language_restored(), gaps, _paced(self.name, self.grid) as pace:
                gaps.libdevice_in(self.fn)
                InterpretedFunction(self.fn)[self.grid](*args, **kwargs)
        except Exception:
            if pace.gave_up:  # the interpreter wraps what its kernel raised: say ours, plainly
                raise Unknown(pace.gave_up) from None
            raise
        finally:
            JITFunction.__call__ = called


@contextlib.contextmanager
def _language_restored():
    """Triton's interpreter patches triton.language for a kernel's run, and again for each JIT helper
    the kernel calls (InterpretedFunction.__call__), a patch it never undoes: left so, the program's
    next real compile fails inside the interpreter's builder ("'ir.value' object has no attribute
    'dtype'"). Every attribute of the language's modules and classes is put back as it was."""
    from triton.runtime import interpreter  # type: ignore[import-untyped]

    held = [(owner, dict(vars(owner))) for owner in _language_owners()]
    try:
        yield
    finally:
        # the interpreter's own globals, which its rewriter copies into the module of each function it
        # rewrites (tl.sum's, a JIT function of triton.language), stay: the rewritten function is cached
        # and reads them at its next run ("name 'interpreter_semantic' is not defined")
        rewriters = vars(interpreter)
        for owner, before in held:
            now = dict(vars(owner))
            for name in now.keys() - before.keys():
                if now[name] is not rewriters.get(name, _MISSING) and not _submodule(owner, name, now[name]):
                    delattr(owner, name)
            for name, value in before.items():
                if now.get(name, _MISSING) is not value:
                    setattr(owner, name, value)


_MISSING = object()


def _submodule(owner, name: str, value) -> bool:
    """A submodule first imported meanwhile (triton.language.extra.libdevice, by a kernel's run): its
    import set it on its package, and does not again once it is in sys.modules."""
    return isinstance(value, types.ModuleType) and value.__name__ == f"{getattr(owner, '__name__', '')}.{name}"


def _language_owners() -> list:
    """triton.language's modules and the classes defined in them."""
    modules = [m for name, m in list(sys.modules.items()) if name.split(".")[:2] == ["triton", "language"]]
    classes = {
        id(value): value
        for module in modules
        for value in vars(module).values()
        if isinstance(value, type) and getattr(value, "__module__", "").startswith("triton.language")
    }
    return [*modules, *classes.values()]


class _paced:
    """Counts the programs the interpreter starts (its builder's set_grid_idx) and gives up, with
    Unknown, once the launch is projected to take longer than HOST_SECONDS."""

    def __init__(self, name: str, grid) -> None:
        self.name, self.programs = name, _programs(grid)
        self.started, self.done, self.gave_up = time.perf_counter(), 0, ""

    def __enter__(self) -> _paced:
        from triton.runtime import interpreter  # type: ignore[import-untyped]

        self.builder = getattr(interpreter, "interpreter_builder", None)
        if self.builder is not None and hasattr(self.builder, "set_grid_idx"):  # else run unguarded
            self.original = self.builder.set_grid_idx
            self.builder.set_grid_idx = self._next
        return self

    def __exit__(self, *exc) -> None:
        if self.builder is not None and hasattr(self, "original"):
            self.builder.set_grid_idx = self.original

    def _next(self, *index) -> None:
        elapsed = time.perf_counter() - self.started
        projected = elapsed / self.done * self.programs if self.done and self.programs else elapsed
        if elapsed > HOST_SECONDS or (elapsed > _PROJECT_AFTER and projected > HOST_SECONDS):
            total = f" of {self.programs:,}" if self.programs else ""
            self.gave_up = (
                f"{self.name} wrote it, and Triton's interpreter would take about {_duration(projected)} "
                f"to run it on the host ({self.done:,}{total} programs in {elapsed:.0f} s; the limit is "
                f"{HOST_SECONDS:.0f} s, {contract.ENV_HOST_SECONDS})"
            )
            raise Unknown(self.gave_up)
        self.done += 1
        self.original(*index)


def _programs(grid) -> int:
    """The programs of a launch's grid, or 0 where it is a function not yet called."""
    if callable(grid):
        return 0
    sizes = list(grid) + [1, 1]
    return int(sizes[0]) * int(sizes[1]) * int(sizes[2])


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:.1f} hours" if seconds >= 5400 else f"{seconds / 60:.0f} minutes"


def _described(value):
    """A host TMA descriptor as a tuple the log can hold its base of (rebuilt at the host run), as the
    launch saw it: an autotuner's pre_hook sets the same descriptor's block_shape anew for each config
    (09-persistent-matmul's), long before the host runs this launch."""
    if dataclasses.is_dataclass(value) and hasattr(value, "base") and not isinstance(value, type):
        snapshot = copy.copy(value)
        for name, field in vars(value).items():
            if isinstance(field, list):
                setattr(snapshot, name, list(field))
        return (DESCRIPTOR, value.base, snapshot)
    return value


def _on_the_host(args, kwargs) -> bool:
    """Whether a launch's tensors are all the host's own (no GPU takes them: a launch on them is the
    host standing in for the GPU)."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor

    tensors = [v for v in (*args, *kwargs.values()) if isinstance(v, torch.Tensor)]
    return bool(tensors) and all(t.device.type == "cpu" and not isinstance(t, FakeTensor) for t in tensors)


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
        if not warmup and _on_the_host(args, kwargs):
            # the host running an operator's body on its own tensors (a triton_op's, a custom_op's, an
            # Inductor graph's kernel node): the launch is run there, as the GPU would run it
            name = getattr(self, "__name__", None) or getattr(self.fn, "__name__", "kernel")
            return InterpretedLaunch(self.fn, grid, name)(list(args), kwargs)
        if warmup or LOG.suspended:
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        LOG.suspended += 1  # the launcher's own notice (driver.LAUNCHED) is this entry's
        try:
            result = original(self, *args, grid=grid, warmup=warmup, **kwargs)
        finally:
            LOG.suspended -= 1
        # the kernel's arguments, given by position or by name (liger's kernels take all by name)
        held = tuple(_described(a) for a in args)
        held_by_name = {name: _described(value) for name, value in kwargs.items()}
        given = (*held, *held_by_name.values())
        tensors = [t for a in given for t in (a[1:2] if isinstance(a, tuple) and a[:1] == (DESCRIPTOR,) else [a])]
        written = [t for t in tensors if isinstance(t, FakeTensor)]
        if written:
            name = getattr(self, "__name__", None) or getattr(self.fn, "__name__", "kernel")
            LOG.record(InterpretedLaunch(self.fn, grid, name), held, held_by_name, None, FakeTensor, written)
        return result

    JITFunction.run = run
