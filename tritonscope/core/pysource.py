"""Reading a kernel file's Python without running it: shared by the sample list (core/) and the loader (app/)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import TypeGuard


def is_kernel_def(node: ast.AST) -> TypeGuard[ast.FunctionDef]:
    """Whether NODE defines a @triton.jit function (`triton.jit`, `gluon.jit`, a bare `jit`, under an
    autotune or heuristics decorator or not)."""
    if not isinstance(node, ast.FunctionDef):
        return False
    names = [ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
    return any(name.rpartition(".")[2] in ("jit", "autotune", "heuristics") for name in names)


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


def _own_nodes(fn: ast.FunctionDef | ast.AsyncFunctionDef):
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


UNSPECIALIZING = ("do_not_specialize", "do_not_specialize_on_alignment")


def unspecialized(source: str, name: str) -> dict[str, tuple[str, ...]]:
    """The parameters the decorators of function NAME in SOURCE name in `do_not_specialize` and
    `do_not_specialize_on_alignment` (by name or position, as Triton takes them), by list; a list
    given as anything but literal names and numbers is left out (a recorded kernel's source, read
    without running it)."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return {}
    fn = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name), None)
    if fn is None:
        return {}
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
    found: dict[str, tuple[str, ...]] = {}
    for call in (d for d in fn.decorator_list if isinstance(d, ast.Call)):
        for keyword in call.keywords:
            if keyword.arg not in UNSPECIALIZING:
                continue
            try:
                given = ast.literal_eval(keyword.value)
            except (ValueError, TypeError, SyntaxError):
                continue
            if not isinstance(given, (list, tuple)):
                continue
            names = [params[g] if isinstance(g, int) and 0 <= g < len(params) else g for g in given]
            found[keyword.arg] = tuple(n for n in names if isinstance(n, str) and n in params)
    return found


def unrolling_loops(source: str, first_line: int, line: int, values: dict) -> list[tuple[int, str, int | None]]:
    """The loops around LINE of SOURCE (which starts at FIRST_LINE) whose body Triton copies once per
    iteration: `for ... in tl.static_range(...)`, and `tl.range(..., loop_unroll_factor=N)`. Each as
    (its line, its iterator as written, the copies: the trip count where literals and VALUES, the
    constexprs by name, give it; N for an unroll factor), outermost first."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return []
    text = textwrap.dedent(source)
    found = []
    at = line - first_line + 1  # in the source's own numbering
    for node in ast.walk(tree):
        if not isinstance(node, ast.For) or not isinstance(node.iter, ast.Call):
            continue
        if not node.body[0].lineno <= at <= (node.end_lineno or 0):
            continue
        copies = _copies(node.iter, values)
        if copies is not False:
            written = ast.get_source_segment(text, node.iter) or ast.unparse(node.iter)
            found.append((node.lineno + first_line - 1, written, copies))
    return sorted(found)


def _copies(call: ast.Call, values: dict) -> int | None | bool:
    """How many copies of its body a loop's iterator makes: None where not known, False for a loop
    Triton does not unroll."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    factor = next((k.value for k in call.keywords if k.arg == "loop_unroll_factor"), None)
    if name == "range" and factor is not None:
        value = _constant(factor, values)
        return value if isinstance(value, int) and value > 1 else False
    if name != "static_range":
        return False
    bounds = [_constant(arg, values) for arg in call.args]
    if not bounds or not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
        return None
    try:
        return len(range(*bounds))
    except (TypeError, ValueError):
        return None


def _constant(node: ast.expr, values: dict):
    """A literal, or a name VALUES gives (a constexpr), else None."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return values.get(node.id)
    return None


def launch_sites(source: str, kernel: str) -> list[tuple[str, int]]:
    """Where SOURCE launches KERNEL (`kernel[grid](...)`): each function whose own body does, by
    qualified name (`_attention.forward`) and line, and "" with the line for a launch by the file's
    module-level code; in the order of the file, [] when none does or SOURCE does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef) and any(_launches(n, kernel) for n in _own_nodes(child)):
                    found.append((name, child.lineno))
                visit(child, f"{name}.", in_function or not isinstance(child, ast.ClassDef))
            else:
                if not in_function and isinstance(child, ast.Call) and _launches(child, kernel):
                    found.append(("", child.lineno))
                visit(child, prefix, in_function)

    visit(tree, "", False)
    return found


def _launches(node: ast.AST, kernel: str) -> bool:
    """`kernel[grid](...)` (also `module.kernel[grid](...)`)."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Subscript):
        return False
    launched = node.func.value
    return (isinstance(launched, ast.Name) and launched.id == kernel) or (
        isinstance(launched, ast.Attribute) and launched.attr == kernel
    )


HELPER_FILES_AT_MOST = 200  # a kernel inside a large project of its own: the watch stays small


def local_imports(path: Path, roots: tuple[Path, ...], within: Path) -> tuple[Path, ...]:
    """The Python files of the user's own that the file at PATH imports, and those they import in
    turn, found without running them: modules under ROOTS (the folders the file is imported from:
    its own, or its package's) or relative to the importing file (`from .utils import x`), kept to
    those inside WITHIN (the file's folder, or its package's): `import triton` beside a checkout of
    it is not followed. A kernel's helper files, so that a save of one compiles again (explore,
    --watch) and a file loaded again in a process does not get the helper as it was."""
    start, within = path.resolve(), within.resolve()
    found: dict[Path, None] = {}
    todo = [start]
    while todo and len(found) < HELPER_FILES_AT_MOST:
        current = todo.pop()
        try:
            tree = ast.parse(current.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            for file in _imported_files(node, current, roots):
                if file != start and file not in found and file.is_relative_to(within):
                    found[file] = None
                    todo.append(file)
    return tuple(found)


def _imported_files(node: ast.AST, current: Path, roots: tuple[Path, ...]):
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield from _module_files(roots, alias.name.split("."))
    elif isinstance(node, ast.ImportFrom):
        if node.level > len(current.parents):  # above the filesystem's root: Python's import says so
            return
        bases = roots if not node.level else (current.parents[node.level - 1],)
        parts = node.module.split(".") if node.module else []
        yield from _module_files(bases, parts)
        for alias in node.names:  # `from pkg import helpers`: a module of the package, named so
            yield from _module_files(bases, [*parts, alias.name])


def _module_files(bases: tuple[Path, ...], parts: list[str]):
    """The files Python runs to import the dotted PARTS from one of BASES: each package's
    `__init__.py` on the way, and the module's own file."""
    for base in bases:
        for depth in range(1, len(parts) + 1):
            folder = base.joinpath(*parts[:depth])
            for file in (folder.with_suffix(".py"), folder / "__init__.py"):
                if file.is_file():
                    yield file.resolve()
