"""Reading a kernel file's Python without running it: shared by the sample list (core/) and the loader (app/)."""

from __future__ import annotations

import ast


def called_functions(fn: ast.FunctionDef, names: set[str]) -> set[str]:
    """The functions among `names` that `fn` calls, or hands to a call as a value (a partition
    given to `gl.warp_specialize` runs as a helper of the kernel that names it)."""
    called: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            named = [node.func, *node.args, *(k.value for k in node.keywords)]
            for value in named:
                called.update(n.id for n in ast.walk(value) if isinstance(n, ast.Name) and n.id in names)
    return called
