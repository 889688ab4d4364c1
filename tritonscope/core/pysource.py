"""Reading a kernel file's Python without running it: shared by the sample list (core/) and the loader (app/)."""

from __future__ import annotations

import ast
import textwrap


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


def returns_value(fn: ast.FunctionDef) -> bool:
    """Whether `fn` returns a value. A kernel cannot: Triton launches only functions that return None,
    so such a function is a helper that other kernels call."""
    return any(isinstance(node, ast.Return) and node.value is not None for node in _own_nodes(fn))


def _own_nodes(fn: ast.FunctionDef):
    """The nodes of `fn`'s body, not those of functions or lambdas defined inside it."""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def declared_constexprs(source: str, name: str) -> set[str] | None:
    """The parameters of function NAME in SOURCE annotated `constexpr` (tl.constexpr, gl.constexpr);
    None when the source does not parse or has no such function."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            params = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            return {
                a.arg for a in params if a.annotation is not None and ast.unparse(a.annotation).endswith("constexpr")
            }
    return None
