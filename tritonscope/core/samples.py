"""The bundled sample kernels: where they are and what they hold, read without importing them."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .errors import KernelFileError
from .pysource import called_functions


@dataclass(frozen=True)
class Sample:
    name: str
    path: Path
    kernels: tuple[str, ...]
    description: str


def samples_dir() -> Path:
    try:
        return Path(str(resources.files("tritonscope.sample_kernels")))
    except ModuleNotFoundError:
        # Running from a source checkout that was never installed (PYTHONPATH=.).
        return Path(__file__).resolve().parents[2] / "sample_kernels"


def all_samples() -> list[Sample]:
    return [_describe(path) for path in sorted(samples_dir().glob("*.py")) if not path.name.startswith("_")]


def sample_path(name: str) -> Path:
    path = samples_dir() / f"{name}.py"
    if name.startswith("_") or not path.is_file():
        names = ", ".join(s.name for s in all_samples())
        raise KernelFileError(f"no sample named '{name}'. Samples: {names}")
    return path


def _describe(path: Path) -> Sample:
    tree = ast.parse(path.read_text(), filename=str(path))
    doc = (ast.get_docstring(tree) or "").strip().splitlines()
    jitted = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef) and _is_jit(node)}
    helpers = set().union(*(called_functions(node, set(jitted) - {name}) for name, node in jitted.items()))
    kernels = tuple(name for name in jitted if name not in helpers)
    return Sample(path.stem, path, kernels, doc[0] if doc else "")


def _is_jit(node: ast.FunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr == "jit":
            return True
    return False
