"""What the kernel files of the launch set share (issue 52: a whole launch's time, measured on a
GPU and estimated without one). Each kernel file here declares a module-level dict LAUNCH_SET,
plain literals only (ast.literal_eval reads it without importing the file):

    kind        what the kernel is ("matmul", "row reduction", ...)
    held_out    True: not used to tune the model, reported apart
    kernel      the @triton.jit function's name (wrapped in @triton.autotune over the configs, so
                that `tritonscope fit FILE` sees them; the launch set launches each config itself)
    sizes       {name: {dimension: value}}: the problem sizes timed on the GPU, in order
    cpu_sizes   the same for the check on Triton's interpreter (tiny); a size may name its own
                "dtype" (the interpreter computes a bf16 tl.dot wrongly: numpy has no bf16, so
                the dot kernels' CPU sizes are fp16)
    dtype       the inputs' element type (a torch dtype's name)
    tolerance   max |out - ref| / max |ref| a config's output may have
    work        {"flops": EXPR, "bytes": EXPR}: a launch's arithmetic and its compulsory DRAM
                traffic (each input read once, each output written once), over the size's
                dimensions and "itemsize"
    configs     [{constexpr: value, ..., "num_warps": W, "num_stages": S, "why": TEXT}]
    grid        the launch grid as expressions over the kernel's arguments and the config's
                constexprs and options, with cdiv, min and max: ["cdiv(M, BLOCK_M) *
                cdiv(N, BLOCK_N)", "1", "1"]; a size's dimensions are named as the kernel's
                arguments, so the same expressions give the grid from a size and a config
                (declared_grid) and from a launch's arguments (the file's grid(meta) hook)

and the hooks every kernel file may have (docs/kernel-files.md): grid(meta), make_inputs(size,
device), launch(*inputs, **config), reference(*inputs), work(*inputs); plus launcher(*inputs,
**config) -> Launch: the output allocated (and zeroed where the kernel accumulates into it), and a
run() that launches the kernel once, returning what Triton's launch returns (the compiled kernel
on a GPU), so that a benchmark times the kernel alone.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")
NOTES = ("why",)


class Launch(NamedTuple):
    run: Callable[[], Any]  # one launch of the kernel
    output: Any  # the tensor the launch writes
    grid: tuple[int, ...]  # the grid it launches
    scalars: dict[str, Any]  # the kernel's scalar arguments (sizes, strides)


def kernel_files() -> list[Path]:
    """Every kernel file of the set, by name."""
    return sorted(p for p in HERE.glob("*.py") if p.name != Path(__file__).name)


def declaration(path: Path) -> dict:
    """A kernel file's LAUNCH_SET, read from its text (nothing imported)."""
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "LAUNCH_SET" for t in node.targets):
            return ast.literal_eval(node.value)
    raise ValueError(f"{path}: no LAUNCH_SET dict")


def constexprs(config: dict) -> dict:
    """A config's constexprs: all but the launch options and the notes."""
    return {k: v for k, v in config.items() if k not in OPTIONS and k not in NOTES}


def launch_options(config: dict) -> dict:
    return {k: v for k, v in config.items() if k in OPTIONS}


def autotune_configs(declared: dict) -> list:
    """LAUNCH_SET's configs as triton.Config, for @triton.autotune."""
    import triton

    return [triton.Config(constexprs(c), **launch_options(c)) for c in declared["configs"]]


def evaluate(expression: str, names: dict) -> int:
    """One of LAUNCH_SET's expressions ("cdiv(M, BLOCK_M) * 2") over NAMES: arithmetic, cdiv, min,
    max and the names alone."""
    allowed = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max, "log2": math.log2}
    tree = ast.parse(expression, mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in names and node.id not in allowed:
            raise ValueError(f"{expression!r}: unknown name {node.id!r}")
        if isinstance(node, ast.Attribute | ast.Subscript | ast.Lambda):
            raise ValueError(f"{expression!r}: only arithmetic, cdiv, min and max are allowed")
    return eval(compile(tree, "<launch set>", "eval"), {"__builtins__": {}}, {**allowed, **names})  # noqa: S307


def declared_grid(declared: dict, size: dict, config: dict) -> tuple[int, ...]:
    """The grid LAUNCH_SET's expressions give for a size and a config."""
    return grid_of(declared, {**size, **constexprs(config), **launch_options(config)})


def grid_of(declared: dict, meta: dict) -> tuple[int, ...]:
    """The grid LAUNCH_SET's expressions give for a launch's arguments and constexprs (META, as
    Triton passes a grid function)."""
    return tuple(int(evaluate(e, dict(meta))) for e in declared["grid"])


def declared_work(declared: dict, size: dict, itemsize: int) -> dict[str, int]:
    return {k: int(evaluate(e, {**size, "itemsize": itemsize})) for k, e in declared["work"].items()}


def size_of(declared: dict, name: str) -> dict:
    """A size by name, from the GPU's sizes or the CPU check's."""
    found = {**declared["sizes"], **declared.get("cpu_sizes", {})}
    if name not in found:
        raise KeyError(f"no size {name!r}; the sizes are {', '.join(found)}")
    return found[name]


def run_once(declared: dict, launcher: Callable[..., Launch], inputs: tuple, config: dict):
    """The `launch` hook: one launch with CONFIG over the first config's values, its output."""
    first = declared["configs"][0]
    started = launcher(*inputs, **{**constexprs(first), **launch_options(first), **config})
    started.run()
    return started.output


def dtype_of(declared: dict, size: str):
    """The inputs' torch dtype for a size: its own "dtype", else LAUNCH_SET's."""
    import torch

    return getattr(torch, size_of(declared, size).get("dtype", declared["dtype"]))


def dimensions(declared: dict, size: str) -> dict[str, int]:
    """A size's dimensions (its "dtype" left out)."""
    return {k: v for k, v in size_of(declared, size).items() if k != "dtype"}


def relative_error(out, ref) -> float:
    """max |out - ref| / max |ref|, in fp32."""
    out, ref = out.float(), ref.float()
    scale = ref.abs().max().item() or 1.0
    return (out - ref).abs().max().item() / scale
