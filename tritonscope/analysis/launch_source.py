"""The program's own launch line, read: which expression each argument of `kernel[grid](...)` was
(`seq`, `batch * seq`, `block` assigned `triton.next_power_of_2(seq)` two lines above), and the
shape a tensor was given where the line makes it (`x.view(batch, seq, HIDDEN)`, `torch.empty(n, d)`).
A name is resolved through the last assignment to it before the line in the same function, else
through the module's own assignment of it."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from ..parsers.dynamo_guards import item_of
from .size_expressions import Expr, from_source

_SHAPED = {"view", "reshape", "expand", "new_empty", "new_zeros", "new_ones", "empty", "zeros", "ones", "randn", "rand"}
_SIZE_AT = {"randint": 2, "full": 0}  # where their size is, positionally (randint(low, high, size))
_SAME_SHAPE = {"to", "cuda", "cpu", "float", "half", "bfloat16", "int", "long", "contiguous", "clone", "detach"}


def _size_argument(node: ast.Call) -> ast.expr | None:
    """The size a shaping call is given as one argument (a tuple, or `size=`), where it is."""
    keyword = next((k.value for k in node.keywords if k.arg == "size"), None)
    if keyword is not None:
        return keyword
    at = _SIZE_AT.get(_called(node), 0)
    if _called(node) == "randint" and len(node.args) == 2:
        at = 1  # randint(high, size)
    return node.args[at] if len(node.args) == at + 1 or (_called(node) in _SIZE_AT and at < len(node.args)) else None


# a tensor's methods that give a view of its storage (its start moved only by narrow's start)
_VIEWS = frozenset(
    {
        "view",
        "reshape",
        "narrow",
        "t",
        "transpose",
        "permute",
        "contiguous",
        "flatten",
        "squeeze",
        "unsqueeze",
        "expand",
        "to",
        "float",
        "half",
        "bfloat16",
        "view_as",
        "select",
    }
)
GRID = "grid[:]"  # the launch's grid expression among its arguments (no parameter has this name)


@dataclass(frozen=True)
class LaunchLine:
    """The expressions of one launch: by parameter name, and the grid's (`grid[0]`)."""

    arguments: dict[str, ast.expr]
    resolve: Callable[[str], ast.expr | None]

    def expression(self, name: str, sizes: frozenset[str]) -> Expr | None:
        node = self.arguments.get(name)
        return from_source(node, sizes, self.resolve) if node is not None else None

    def roots(self, name: str) -> set[str]:
        """The names the argument NAME's expression reads at its roots, through the assignments before
        the line (`n = batch * seq`: batch, seq); a module or a function called is none."""
        return self._roots(self.arguments.get(name))

    def starts(self, name: str) -> set[str]:
        """The names that set where the tensor argument NAME starts in its storage: a slice's start or
        an index along its tensor's chain (`x = buf[off:off + n]`: off; `buf[i]`, `buf.narrow(0, i,
        n)`, `buf.select(0, i)`: i); a tensor the chain allocates (`torch.randn(batch, seq)`) starts
        at 0 whatever its sizes."""
        found: set[str] = set()
        node, seen = self.arguments.get(name), 0
        while node is not None and seen < 16:
            seen += 1
            if isinstance(node, ast.Name):
                node = self.resolve(node.id)
            elif isinstance(node, ast.Subscript):
                for part in node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]:
                    found |= self._roots(part.lower if isinstance(part, ast.Slice) else part)
                node = node.value
            elif isinstance(node, ast.Attribute):  # x.T, x.mT
                node = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _VIEWS:
                if node.func.attr in ("narrow", "select") and len(node.args) >= 2:  # (dim, start, ...)
                    found |= self._roots(node.args[1])
                node = node.func.value
            else:
                break
        return found

    def _roots(self, start: ast.expr | None) -> set[str]:
        found: set[str] = set()
        seen: set[str] = set()
        todo = [start]
        while todo:
            node = todo.pop()
            if node is None:
                continue
            named = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}  # functions called,
            named |= {id(n.value) for n in ast.walk(node) if isinstance(n, ast.Attribute)}  # modules read
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and sub.id not in seen and id(sub) not in named:
                    seen.add(sub.id)
                    resolved = self.resolve(sub.id)
                    found.add(sub.id) if resolved is None else todo.append(resolved)
        return found

    def shape(self, name: str, sizes: frozenset[str]) -> list[Expr | None] | None:
        """The dims of the tensor argument NAME where the line (or the assignment it names) shapes it."""
        node = self.arguments.get(name)
        for _ in range(8):
            if isinstance(node, ast.Name):
                node = self.resolve(node.id)
            elif isinstance(node, ast.Call) and _called(node) in _SAME_SHAPE and isinstance(node.func, ast.Attribute):
                node = node.func.value  # ids.to(dev), x.float(): the shape of what they are called on
            else:
                break
        if not isinstance(node, ast.Call) or _called(node) not in _SHAPED | _SIZE_AT.keys():
            return None
        given = _size_argument(node)
        dims = given.elts if isinstance(given, (ast.Tuple, ast.List)) else node.args
        return [from_source(d, sizes, self.resolve) for d in dims]


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def parsed(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def kernel_launch(tree: ast.Module, line: int, kernel: str, params: list[str]) -> LaunchLine | None:
    """The launch `kernel[grid](...)` on LINE, its arguments mapped to PARAMS (the kernel by any name the
    file gives it: `from kernels import add_kernel as add`, `add = k.add_kernel`)."""
    names = _names_of(tree, kernel)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript) and _spans(node, line):
            target = node.func.value
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name not in names:
                continue
            arguments = dict(zip(params, node.args, strict=False))
            arguments.update({k.arg: k.value for k in node.keywords if k.arg})
            grid = node.func.slice
            arguments[GRID] = grid  # whole: `(rows,)`, a name assigned before, a lambda of meta
            if isinstance(grid, ast.Tuple):
                arguments.update({f"grid[{i}]": g for i, g in enumerate(grid.elts)})
            return LaunchLine(arguments, _resolver(tree, line))
    return None


def _names_of(tree: ast.Module, kernel: str) -> set[str]:
    """KERNEL and the names the file binds it to: an import's `as`, a plain assignment of it."""
    names = {kernel}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names |= {a.asname for a in node.names if a.name == kernel and a.asname}
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if (value.attr if isinstance(value, ast.Attribute) else getattr(value, "id", None)) == kernel:
                names.add(node.targets[0].id)
    return names


def function_call(
    tree: ast.Module, line: int, params: list[str], function: str | None = None, signature: list[str] | None = None
) -> LaunchLine | None:
    """The call on LINE that gives each of PARAMS (a torch.compile'd function's inputs as dynamo names
    them: `x`, `args[0]`, `kwargs['input_ids']`), by position or by keyword: a call of FUNCTION (by its
    name) first, as the call nested in another (`print(tuple(f(x).shape))`) is not the outer one's.
    `signature`: the function's positional parameters (`positional_params`), which place its other
    arguments (`f(torch.randn(n, 4), n)`: x is the first of two, where PARAMS name the tensors)."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _spans(n, line)] if params else []
    named = [c for c in calls if function and _called_name(c) == function]
    for node in named or calls:
        bound = _bound(node, params, signature)
        if bound is not None:
            return LaunchLine(bound, _resolver(tree, line))
    return None


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def positional_params(tree: ast.Module, line: int, function: str) -> list[str] | None:
    """The positional parameters of FUNCTION defined at LINE (its `def`, or its first decorator's line,
    as a code object's first line is): a method's `self` left out, as its calls leave it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if line in (first, node.lineno):
                names = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
                return names[1:] if names[:1] in (["self"], ["cls"]) else names
    return None


def _bound(call: ast.Call, params: list[str], signature: list[str] | None = None) -> dict[str, ast.expr] | None:
    """Each param's expression in the call; None where one is not given there."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    plain = [name for name in params if item_of(name) is None and name not in keywords]
    placed = dict(zip(signature, call.args, strict=False)) if signature else {}
    if plain and all(item_of(name) is None and (name in keywords or name in placed) for name in params):
        return {name: keywords.get(name) or placed[name] for name in params}  # placed by the function's own parameters
    if plain and len(plain) != len(call.args):  # which argument is which, by position, is not plain
        return None
    positional = iter(call.args)
    found: dict[str, ast.expr] = {}
    for name in params:
        item = item_of(name)  # args[0], kwargs['input_ids']
        if isinstance(item, int):
            value = call.args[item] if item < len(call.args) else None
        elif item is not None:
            value = keywords.get(item)
        else:
            value = keywords.get(name) or next(positional, None)
        if value is None:
            return None
        found[name] = value
    return found


def _spans(node: ast.AST, line: int) -> bool:
    first = getattr(node, "lineno", 0)
    return first <= line <= (getattr(node, "end_lineno", None) or first)


def _resolver(tree: ast.Module, line: int) -> Callable[[str], ast.expr | None]:
    """Names as the line sees them: the function's last assignment before it, else the module's."""
    spanning = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and _spans(f, line)]
    function = max(spanning, key=lambda f: f.lineno, default=None)  # the innermost
    local = _assignments(function, before=line) if function is not None else {}
    # the module's, its loops' and with blocks' included (a script's `for L in ...: ids = ...(2, L)`)
    module = {**_assignments(tree, before=None, top_only=True), **_assignments(tree, before=line, outside=True)}

    def resolve(name: str) -> ast.expr | None:
        return local.get(name, module.get(name))

    return resolve


def _outside_functions(node: ast.AST):
    """ast.walk, into no function's or class's body."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            yield from _outside_functions(child)


def _assignments(
    scope: ast.AST, before: int | None, top_only: bool = False, outside: bool = False
) -> dict[str, ast.expr]:
    found: dict[str, tuple[int, ast.expr]] = {}
    walked = _outside_functions(scope) if outside else ast.walk(scope)
    nodes = scope.body if top_only and hasattr(scope, "body") else walked
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if before is None or node.lineno < before:
                name = node.targets[0].id
                if name not in found or found[name][0] < node.lineno:
                    found[name] = (node.lineno, node.value)
    return {name: value for name, (_, value) in found.items()}
