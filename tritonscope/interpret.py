"""Runs a kernel's own index arithmetic under Triton's interpreter and records what each program
reads and writes. Used by `tritonscope grid`.

The run happens in a child process started with TRITON_INTERPRET=1, because the interpreter
must be on before Triton is imported. Memory is never touched: pointer arguments get fake,
far-apart base addresses, and the interpreter's loads and stores are replaced by recorders
(a load returns zeros, and so does a dot). So no buffer has to be allocated or sized, and the kernel's index
arithmetic runs exactly as written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict, dataclass

from .errors import KernelFileError, UsageError

_SPACING = 1 << 40  # pointer argument i starts at (i + 1) << 40


@dataclass(frozen=True)
class Access:
    param: str  # the pointer parameter it goes through
    runs: list[list[int]]  # element offsets as [start, end) runs, in order
    count: int

    @property
    def key(self) -> tuple:
        return self.param, tuple(map(tuple, self.runs))


@dataclass(frozen=True)
class Program:
    index: int  # linear launch order: x fastest, as GPUs launch them
    pid: tuple[int, int, int]
    loads: list[Access]
    stores: list[Access]


def record(
    file: str, kernel: str, values: dict, pointer_types: dict, grid: tuple[int, ...], timeout: float = 600
) -> list[Program]:
    """Every program's loads and stores, from a run in a child process."""
    request = json.dumps(
        {"file": file, "kernel": kernel, "values": values, "pointers": pointer_types, "grid": list(grid)}
    )
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    child = subprocess.run(
        [sys.executable, "-c", "from tritonscope.interpret import _child; _child()", request],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if child.returncode != 0 or not child.stdout.strip():
        detail = (child.stderr.strip().splitlines() or ["no output"])[-1]
        raise KernelFileError(f"the interpreter could not run {kernel}: {detail}")
    data = json.loads(child.stdout.strip().splitlines()[-1])
    if "error" in data:
        raise UsageError(data["error"])
    return [
        Program(p["index"], tuple(p["pid"]), [Access(**a) for a in p["loads"]], [Access(**a) for a in p["stores"]])
        for p in data["programs"]
    ]


def _child() -> None:
    """In the child: import the file with the interpreter on, run the grid, print the record as JSON."""
    import importlib.util
    import inspect
    from pathlib import Path

    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    request = json.loads(sys.argv[1])
    path = Path(request["file"])
    spec = importlib.util.spec_from_file_location(f"tritonscope_grid_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    spec.loader.exec_module(module)
    kernel = getattr(module, request["kernel"])
    while not isinstance(kernel, interpreter.InterpretedFunction):
        kernel = kernel.fn  # through @triton.autotune / @triton.heuristics
    names = list(inspect.signature(kernel.fn).parameters)
    pointer_names = list(request["pointers"])

    class FakePointer:
        def __init__(self, index: int, element: str):
            self.dtype = tl.dtype(element)
            self.base = (index + 1) * _SPACING

        def data_ptr(self) -> int:
            return self.base

    args = {}
    for name in names:
        if name in request["pointers"]:
            args[name] = FakePointer(pointer_names.index(name), request["pointers"][name])
        else:
            value = request["values"][name]
            args[name] = tl.dtype(value) if isinstance(value, str) else value
    constexprs = {n for n, p in inspect.signature(kernel.fn).parameters.items() if "constexpr" in str(p.annotation)}

    builder = interpreter.interpreter_builder
    current: dict = {}

    def accesses(ptrs, mask):
        addresses = np.asarray(ptrs.data[mask.data] if mask is not None else ptrs.data, dtype=np.uint64).ravel()
        element = ptrs.get_element_ty().primitive_bitwidth // 8
        which = addresses // _SPACING - 1
        for index in np.unique(which).tolist():
            if not 0 <= index < len(pointer_names):
                continue
            elements = np.unique((addresses[which == index] % _SPACING) // element)
            breaks = np.flatnonzero(np.diff(elements) != 1)
            starts = np.concatenate(([elements[0]], elements[breaks + 1]))
            ends = np.concatenate((elements[breaks] + 1, [elements[-1] + 1]))
            runs = [[int(s), int(e)] for s, e in zip(starts, ends, strict=True)]
            yield {"param": pointer_names[index], "runs": runs, "count": int(elements.size)}

    def masked_load(ptrs, mask, other, *_):
        current["loads"] += list(accesses(ptrs, mask))
        dtype = ptrs.get_element_ty()
        return interpreter.TensorHandle(np.zeros(ptrs.data.shape, dtype=interpreter._get_np_dtype(dtype)), dtype)

    def masked_store(ptrs, value, mask, *_):
        current["stores"] += list(accesses(ptrs, mask))

    def dot(a, b, d, *_):  # the values are zeros anyway: skip the arithmetic, keep the shapes
        return interpreter.TensorHandle(d.data.copy(), d.dtype.scalar)

    builder.create_masked_load = masked_load
    builder.create_masked_store = masked_store
    builder.create_dot = dot
    grid = tuple(request["grid"]) + (1,) * (3 - len(request["grid"]))
    fn = kernel.rewrite()
    patch = interpreter._patch_lang(kernel.fn)
    programs = []
    try:
        call = {n: a if n in constexprs else interpreter._implicit_cvt(a) for n, a in args.items()}
        builder.set_grid_dim(*grid)
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    current.update(loads=[], stores=[])
                    builder.set_grid_idx(x, y, z)
                    fn(**call)
                    programs.append({"index": len(programs), "pid": [x, y, z], **current})
    except Exception as exc:  # noqa: BLE001 - the kernel's own code: report it as one line
        print(json.dumps({"error": f"{request['kernel']} failed under the interpreter: {type(exc).__name__}: {exc}"}))
        return
    finally:
        patch.restore()
    print(json.dumps({"programs": programs}))


def tile_of(access: Access) -> tuple[int, int, int, int] | None:
    """(first row, first column, rows, columns) of a 2-D tile written as equal runs, in elements of
    a row-major matrix whose row stride is the distance between runs; None for one run."""
    if len(access.runs) < 2:
        return None
    stride = access.runs[1][0] - access.runs[0][0]
    width = access.runs[0][1] - access.runs[0][0]
    row, column = divmod(access.runs[0][0], stride)
    return row, column, len(access.runs), width


def as_json(programs: list[Program]) -> list[dict]:
    return [asdict(p) for p in programs]
