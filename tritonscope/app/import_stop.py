"""A kernel file whose module-level code reads a value from the (simulated) GPU.

Triton's tutorials launch a kernel at module level and print its result there; on the
simulated device that print cannot be answered, so the import stops at that statement. The
kernels defined so far are kept, and so are the ones defined after it: the definitions that
follow the stopping statement (def, class, import, assignments, if/try/with blocks) still
run, one statement at a time; its other statements (calls, loops: benchmarks, more prints)
are skipped, as they would read the device again.
"""

from __future__ import annotations
import __future__

import ast
import traceback
from pathlib import Path
from typing import Any

_DEFINITIONS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Import,
    ast.ImportFrom,
    ast.Assign,
    ast.AnnAssign,
    ast.If,
    ast.Try,
    ast.With,
)


def is_device_read(exc: BaseException) -> bool:
    """Whether the simulated device stopped the code for reading a value it cannot give."""
    return bool(getattr(type(exc), "device_value_read", False))


def line_in_file(exc: BaseException, path: Path) -> int | None:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    return frames[-1].lineno if frames else None


def continue_after(module: Any, path: Path, source: str, exc: BaseException) -> str:
    """Runs the definitions after the statement that stopped the import; returns a line saying where
    it stopped and why."""
    tree = ast.parse(source, str(path))
    line = line_in_file(exc, path) or 0
    stopped = next((i for i, s in enumerate(tree.body) if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
    if stopped is None:
        stopped = len(tree.body)
    flags = _future_flags(tree)
    skipped = 0
    for statement in tree.body[stopped + 1 :]:
        if not isinstance(statement, _DEFINITIONS):
            skipped += 1
            continue
        code = compile(ast.Module([statement], type_ignores=[]), str(path), "exec", flags=flags, dont_inherit=True)
        try:
            exec(code, module.__dict__)
        except Exception:  # noqa: BLE001 - foreign code after the stop: keep what defines, skip the rest
            skipped += 1
    after = f"; after it, its definitions ran and {skipped} other statement(s) were skipped" if skipped else ""
    return f"the import of {path.name} stopped at line {line}: {exc}{after}"


def _future_flags(tree: ast.Module) -> int:
    flags = 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            for alias in node.names:
                feature = getattr(__future__, alias.name, None)
                flags |= getattr(feature, "compiler_flag", 0)
    return flags
