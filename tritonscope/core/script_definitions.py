"""A kernel of a traced program's own script, made again from the script's definitions alone.

A capture's kernel defined in the script `trace` ran (its module `__main__`) lives in a file that is
a program: importing it to compile the kernel again (recompiles' proofs, `fit DIR/`) would run the
program again, its side effects and its `sys.exit` with it, or hang in its serving loop. Its
top-level statements that only define are run instead, as a notebook cell's kernel is made
(core/source.py CellKernel): imports, functions and classes (their decorators: @triton.autotune's
configs), and constants whose values call nothing but Triton, `math` and Python's builtins; a
`try` or an `if` whose every statement is such (an import with a fallback). Loops, calls and the
`if __name__ == "__main__":` block are not run; a constant whose making fails (the GPU the program ran
on: `DEVICE = triton.runtime.driver.active.get_active_torch_device()`) is left out.
"""

from __future__ import annotations

import ast
import os
import textwrap

from . import fileio
from .errors import KernelFileError
from .source import CellKernel, CellPiece

# Calls a constant may make: Python's own value builders, and any function of these modules
_BUILTINS = frozenset(
    "int float str bool tuple list dict set frozenset range len min max abs round sorted getattr".split()
)
_MODULES = ("triton", "math", "operator", "functools", "itertools", "os.path")


def script_kernel(file: str, kernel: str) -> CellKernel | None:
    """The kernel KERNEL of the script FILE, as its definitions only make it; None where they do not
    define it (the caller imports the file then, as any kernel file)."""
    try:
        text = fileio.read_input_text(file)
        tree = ast.parse(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
        said = f"{file}: the script's definitions could not be read ({type(exc).__name__}: {exc})"
        raise KernelFileError(said) from None
    lines = text.splitlines(keepends=True)
    trusted = _trusted_names(tree)
    pieces = []
    for number, node in enumerate(_definitions(tree.body, trusted)):
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # whole lines (Triton reads them), at the left margin where a GPU check held them
            source = textwrap.dedent("".join(lines[first - 1 : node.end_lineno]))
        else:  # the statement alone: `import sys; sys.exit(3)` is two
            source = textwrap.dedent(ast.get_source_segment(text, node) or "")
        optional = isinstance(node, (ast.Assign, ast.AnnAssign))  # `DEVICE = ...active_torch_device()` may fail
        pieces.append(CellPiece(_bound(node) or f"_statement_{number}", file, first, source, optional=optional))
    if not any(piece.name == kernel for piece in pieces):
        return None
    return CellKernel(file, kernel, tuple(pieces), (), (os.path.dirname(os.path.abspath(file)),))


def _definitions(statements: list[ast.stmt], trusted: set[str]):
    """The statements that only define; the body of an `if` that asks what cannot be asked here
    (`if torch.cuda.is_available():`, as libraries guard their kernels) as a GPU run takes it."""
    for node in statements:
        if _defines(node, trusted):
            yield node
        elif isinstance(node, ast.If) and not _mentions_name(node.test):
            yield from _definitions(node.body, trusted)


def _mentions_name(test: ast.expr) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(test))


def _trusted_names(tree: ast.Module) -> set[str]:
    """The names the script binds to the modules of `_MODULES` and their objects (`tl`, `cdiv`)."""
    names = set(_BUILTINS)
    for node in tree.body:
        if isinstance(node, ast.Import):
            names |= {(a.asname or a.name.split(".")[0]) for a in node.names if _trusted(a.name)}
        elif isinstance(node, ast.ImportFrom) and node.module and _trusted(node.module):
            names |= {(a.asname or a.name) for a in node.names}
    return names


def _trusted(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in _MODULES)


def _defines(node: ast.stmt, trusted: set[str]) -> bool:
    """Whether a statement only defines (module docstring): no call but to trusted names, no loop."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return True
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        return node.value is None or _calls_only(node.value, trusted)
    if isinstance(node, ast.Expr):
        return isinstance(node.value, ast.Constant)
    if isinstance(node, ast.Try):
        blocks = [node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)]
        return all(_defines(statement, trusted) for block in blocks for statement in block)
    if isinstance(node, ast.If):
        return (
            not _mentions_name(node.test)
            and _calls_only(node.test, trusted)
            and all(_defines(statement, trusted) for statement in [*node.body, *node.orelse])
        )
    return False


def _calls_only(expression: ast.expr, trusted: set[str]) -> bool:
    """Every call in EXPRESSION is of a trusted name or an attribute of one (`triton.cdiv(...)`); a
    lambda's body is not looked into (defined, not run)."""
    waiting: list[ast.AST] = [expression]
    while waiting:
        node = waiting.pop()
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(node, ast.Call):
            root = node.func
            while isinstance(root, ast.Attribute):
                root = root.value
            if not (isinstance(root, ast.Name) and root.id in trusted):
                return False
        waiting.extend(ast.iter_child_nodes(node))
    return True


def _bound(node: ast.stmt) -> str | None:
    """The name a definition binds (the kernel's is how the compile finds it), else None."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    return names[0] if len(names) == 1 else None
