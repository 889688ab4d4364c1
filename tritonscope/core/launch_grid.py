"""`--grid`: the launch grid a whole launch's time is estimated for, as the launch would compute it.

One to three sizes, each a number or an integer expression of the kernel's arguments and constexprs,
as a launcher's grid lambda writes it: `--grid 'cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)'`, `--grid
4096,8`, `--grid 'cdiv(n, BLOCK)'`. Expressions take + - * // % and parentheses, cdiv (triton.cdiv),
min and max; nothing else is evaluated. Parsed once, where it is given; evaluated for each variant
(`fit` evaluates it for every config, whose BLOCK sizes differ).
"""

from __future__ import annotations

import ast
import difflib
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import UsageError

_OPERATORS: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_FUNCTIONS: dict[str, Callable[..., int]] = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}
FLAG = "--grid"


@dataclass(frozen=True)
class GridSpec:
    """The sizes of a launch grid, each an expression (a plain number included), as given."""

    text: str
    sizes: tuple[str, ...]
    given_by: str = "--grid"  # where it came from, as the estimate says it

    def names(self) -> tuple[str, ...]:
        """The arguments and constexprs the sizes name."""
        found = [n.id for size in self.sizes for n in ast.walk(_tree(size)) if isinstance(n, ast.Name)]
        return tuple(dict.fromkeys(name for name in found if name not in _FUNCTIONS))

    def evaluate(self, values: Mapping[str, Any], parameters: Sequence[str] = ()) -> tuple[int, int, int]:
        """The grid for these argument and constexpr values; what it names must be among them, and
        among the kernel's `parameters` where they are given."""
        # a bool counts as Python counts it in a grid (use_fp8 + 1): it was "not known", its value given (h20a)
        missing = [name for name in self.names() if not isinstance(values.get(name), int)]
        known = [*parameters, *(n for n in values if n not in parameters)]
        if parameters and any(n not in known for n in missing):  # not the kernel's at all: -a would be refused
            raise self._not_the_kernels([n for n in missing if n not in known], known)
        if missing:
            given = ", ".join(f"-a {name}=VALUE" for name in missing)
            raise UsageError(f"{FLAG} {self.text} names {', '.join(missing)}, whose value is not known: give {given}")
        sizes = tuple(_evaluate(_tree(size).body, values) for size in self.sizes)
        if min(sizes) < 1:
            raise UsageError(f"{FLAG} {self.text} gives {sizes}: every size of a launch grid is at least 1")
        return three(sizes)

    def check_names(self, parameters: Sequence[str]) -> None:
        """Refuses a name that is none of the kernel's arguments and constexprs, before anything
        compiles (fit found it after compiling every cell)."""
        unknown = [name for name in self.names() if name not in parameters]
        if unknown:
            raise self._not_the_kernels(unknown, list(parameters))

    def _not_the_kernels(self, names: list[str], known: list[str]) -> UsageError:
        alike = {n: difflib.get_close_matches(n, known, n=1) for n in names}
        meant = "; ".join(f"{n}: did you mean {m[0]}?" if m else f"{n} is none of them" for n, m in alike.items())
        said = f"{FLAG} {self.text} names what is not an argument or constexpr of the kernel ({meant})"
        return UsageError(said, hint=f"the grid may name {', '.join(known)}")


def three(sizes: tuple[int, ...]) -> tuple[int, int, int]:
    """A grid of one to three sizes as three (the missing ones 1)."""
    x, y, z = (*sizes, 1, 1, 1)[:3]
    return int(x), int(y), int(z)


def parse(text: str) -> GridSpec:
    """`X[,Y[,Z]]`, each a number or an expression (module docstring); refused here when it is not one."""
    sizes = tuple(part.strip() for part in _split(text.replace("triton.cdiv", "cdiv")))
    if not 1 <= len(sizes) <= 3 or not all(sizes):
        raise UsageError(f"{FLAG} expects X[,Y[,Z]]: 1 to 3 sizes, numbers or expressions, not '{text}'")
    for size in sizes:
        _check(_tree(size).body, text)
    return GridSpec(text, sizes)


def of_run(grid: tuple[int, ...] | None) -> GridSpec | None:
    """The grid a `--from-run` launch gave (VariantRequest.run_grid), or None."""
    if not grid:
        return None
    return GridSpec(",".join(map(str, grid)), tuple(map(str, grid)), "the run's launch")


def _split(text: str) -> list[str]:
    """The sizes, split at the commas outside parentheses (`cdiv(M, 64), 4`)."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]


def _tree(size: str) -> ast.Expression:
    try:
        return ast.parse(size, mode="eval")
    except SyntaxError:
        raise UsageError(f"{FLAG}: '{size}' is not an expression (numbers, names, + - * // %, cdiv)") from None


def _check(node: ast.AST, text: str) -> None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return
    if isinstance(node, ast.Name):
        return
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        _check(node.left, text)
        _check(node.right, text)
        return
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        _check(node.operand, text)
        return
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS:
        if node.keywords or not node.args:
            raise UsageError(f"{FLAG} {text}: {node.func.id}() takes its values in order")
        if node.func.id == "cdiv" and len(node.args) != 2 or len(node.args) < 2:  # max(EM): exit 3 (h20a)
            wanted = "two values" if node.func.id == "cdiv" else "two values or more"
            raise UsageError(f"{FLAG} {text}: {node.func.id}() takes {wanted}, not {len(node.args)}")
        for argument in node.args:
            _check(argument, text)
        return
    raise UsageError(
        f"{FLAG} {text}: '{ast.unparse(node)}' is not something a grid is computed with",
        hint="use numbers, argument and constexpr names, + - * // %, parentheses, cdiv, min and max",
    )


def _evaluate(node: ast.AST, values: Mapping[str, Any]) -> int:
    if isinstance(node, ast.Constant):
        assert type(node.value) is int  # _check let through no other constant
        return node.value
    if isinstance(node, ast.Name):
        return int(values[node.id])
    if isinstance(node, ast.UnaryOp):
        return -_evaluate(node.operand, values)
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left, values), _evaluate(node.right, values)
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right == 0:
            raise UsageError(f"{FLAG}: '{ast.unparse(node)}' divides by zero")
        return _OPERATORS[type(node.op)](left, right)
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    arguments = [_evaluate(argument, values) for argument in node.args]
    if node.func.id == "cdiv" and (len(arguments) != 2 or arguments[1] == 0):
        raise UsageError(f"{FLAG}: '{ast.unparse(node)}': cdiv takes two values, the second not zero")
    return _FUNCTIONS[node.func.id](*arguments)
