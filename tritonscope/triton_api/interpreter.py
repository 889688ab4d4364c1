"""A kernel's own index arithmetic under Triton's interpreter, recording what each program reads
and writes (for `tritonscope grid`). Runs in a worker started with TRITON_INTERPRET=1, because
the interpreter must be on before the kernel file is imported.

Memory is never touched: pointer arguments get fake, far-apart base addresses, and the
interpreter's loads and stores are replaced by recorders (a load returns zeros, and so
does a dot). Since 3.5: `interpreter._patch_lang`, `_implicit_cvt`, `interpreter_builder`.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path

import numpy as np
from triton.runtime import interpreter

from ..core.errors import KernelFileError
from ..core.source import CellKernel
from ..core.values import TypeName
from . import kernels as triton_kernels

SPACING = 1 << 40  # pointer argument i starts at (i + 1) << 40


class FakePointer:
    """A tensor as the interpreter sees it: a dtype and a base address far from every other."""

    def __init__(self, index: int, element: str):
        self.dtype = triton_kernels.dtype(element)
        self.base = (index + 1) * SPACING

    def data_ptr(self) -> int:
        return self.base


def record(file: str | CellKernel, kernel_name: str, values: dict, pointers: dict, grid: tuple[int, ...]) -> list[dict]:
    """Every program's loads and stores, in launch order (axis 0 fastest), as plain data. FILE is the
    kernel file, or the cells that define the kernel (core/source.py CellKernel)."""
    kernel = _interpreted(file, kernel_name)
    names = list(pointers)
    args, constexprs = _arguments(kernel, values, pointers)
    current: dict = {}
    _record_memory(interpreter.interpreter_builder, names, current)
    grid = tuple(grid) + (1,) * (3 - len(grid))
    fn = kernel.rewrite()
    _index_with_any_numpy()
    patch = interpreter._patch_lang(kernel.fn)
    programs = []
    try:
        call = {n: a if n in constexprs else _as_launched(a) for n, a in args.items()}
        interpreter.interpreter_builder.set_grid_dim(*grid)
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    current.update(loads=[], stores=[])
                    interpreter.interpreter_builder.set_grid_idx(x, y, z)
                    fn(**call)
                    programs.append({"index": len(programs), "pid": [x, y, z], **current})
    except Exception as exc:  # the kernel's own code: report it as one line
        raise KernelFileError(f"{kernel_name} failed under the interpreter: {type(exc).__name__}: {exc}") from exc
    finally:
        if patch is not None:  # before 3.6 _patch_lang patched for good and returned None
            patch.restore()
    return programs


def _as_launched(arg):
    """An argument as a launch passes it: the interpreter's own conversion, and a float as an fp32
    scalar tensor (the launcher specializes it so; `_implicit_cvt` leaves it a Python float, whose
    `eps.to(tl.float32)` then fails)."""
    if isinstance(arg, float):
        tl = interpreter.tl
        handle = interpreter.TensorHandle(np.array([arg], dtype=np.float32), tl.float32)
        return tl.tensor(handle, tl.float32)
    return interpreter._implicit_cvt(arg)


def _index_with_any_numpy() -> None:
    """Up to 3.6 the interpreter's `tensor.__index__` is `int()` of a 1-element array, which numpy 2.4
    refuses ("only 0-dimensional arrays can be converted"); 3.7 squeezes the array first. Every jitted
    call patches triton.language again, so the squeeze goes after each patch of the tensor class."""
    original = interpreter._patch_lang_tensor  # (tensor) before 3.6, (tensor, scope) since
    if getattr(original, "squeezes", False):
        return

    def patch_tensor(tensor, *scope):
        original(tensor, *scope)
        tensor.__index__ = lambda self: int(self.handle.data.squeeze())

    patch_tensor.squeezes = True
    interpreter._patch_lang_tensor = patch_tensor


def _interpreted(file: str | CellKernel, kernel_name: str):
    if isinstance(file, CellKernel):
        from .cell_module import module_of

        module = module_of(file)
    else:
        path = Path(file)
        spec = importlib.util.spec_from_file_location(f"tritonscope_grid_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        sys.path.insert(0, str(path.parent))
        spec.loader.exec_module(module)
    kernel = getattr(module, kernel_name)
    for _ in range(16):  # through @triton.autotune, @triton.heuristics and libraries' wrappers
        if isinstance(kernel, interpreter.InterpretedFunction):
            return kernel
        kernel = kernel.fn
    raise KernelFileError(f"{kernel_name} is not a Triton kernel under the interpreter")


def _arguments(kernel, values: dict, pointers: dict) -> tuple[dict, set[str]]:
    parameters = inspect.signature(kernel.fn).parameters
    names = list(pointers)
    args = {}
    for name in parameters:
        if name in pointers:
            args[name] = FakePointer(names.index(name), TypeName(pointers[name]).element)
        else:
            value = values[name]
            args[name] = triton_kernels.dtype(value) if isinstance(value, TypeName) else value
    constexprs = {n for n, p in parameters.items() if "constexpr" in str(p.annotation)}
    return args, constexprs


def _record_memory(builder, pointer_names: list[str], current: dict) -> None:
    """Replaces the interpreter's loads, stores and dots with recorders of the addresses touched."""

    def masked_load(ptrs, mask, other, *_):
        current["loads"] += _accesses(ptrs, mask, pointer_names)
        dtype = ptrs.get_element_ty()
        return interpreter.TensorHandle(np.zeros(ptrs.data.shape, dtype=interpreter._get_np_dtype(dtype)), dtype)

    def masked_store(ptrs, value, mask, *_):
        current["stores"] += _accesses(ptrs, mask, pointer_names)

    def dot(a, b, d, *_):  # the values are zeros anyway: skip the arithmetic, keep the shapes
        return interpreter.TensorHandle(d.data.copy(), d.dtype.scalar)

    builder.create_masked_load = masked_load
    builder.create_masked_store = masked_store
    builder.create_dot = dot


def _accesses(ptrs, mask, pointer_names: list[str]) -> list[dict]:
    """The elements one load or store touches, per pointer argument, as [start, end) runs."""
    addresses = np.asarray(ptrs.data[mask.data] if mask is not None else ptrs.data, dtype=np.uint64).ravel()
    element = ptrs.get_element_ty().primitive_bitwidth // 8
    which = addresses // SPACING - 1
    found = []
    for index in np.unique(which).tolist():
        if not 0 <= index < len(pointer_names):
            continue
        elements = np.unique((addresses[which == index] % SPACING) // element)
        breaks = np.flatnonzero(np.diff(elements) != 1)
        starts = np.concatenate(([elements[0]], elements[breaks + 1]))
        ends = np.concatenate((elements[breaks] + 1, [elements[-1] + 1]))
        runs = [[int(s), int(e)] for s, e in zip(starts, ends, strict=True)]
        found.append({"param": pointer_names[index], "runs": runs, "count": int(elements.size)})
    return found
