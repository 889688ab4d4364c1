"""Reading a kernel file's Python without running it: shared by the sample list (core/) and the loader (app/)."""

from __future__ import annotations

import ast


def called_functions(fn: ast.FunctionDef, names: set[str]) -> set[str]:
    """The functions among `names` that `fn` calls."""
    return {
        node.func.id
        for node in ast.walk(fn)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names
    }
