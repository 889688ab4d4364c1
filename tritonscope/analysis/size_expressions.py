"""A launch argument as a function of the sizes a server declares (`--shapes batch=1..256,seq=1..8192`):
`seq`, `batch * seq`, `triton.next_power_of_2(seq)`, `triton.cdiv(batch * seq, 16)`, a constant. Read
from the program's own launch line (analysis/launch_source.py), or found in the launches' values;
evaluated over every point of the declared ranges at once (numpy arrays), for the prediction.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Expr:
    """An integer expression over the declared sizes."""

    op: str  # "const", "size", "+", "-", "*", "//", "%", "next_power_of_2", "cdiv", "max", "min"
    args: tuple = ()  # the operands: (value,) for const, (name,) for size, Exprs else

    @property
    def text(self) -> str:
        if self.op == "const":
            return str(self.args[0])
        if self.op == "size":
            return str(self.args[0])
        if self.op in _BINARY:
            return f"{_wrapped(self.args[0])} {self.op} {_wrapped(self.args[1])}"
        name = f"triton.{self.op}" if self.op in ("next_power_of_2", "cdiv") else self.op
        return f"{name}({', '.join(a.text for a in self.args)})"

    @property
    def sizes(self) -> frozenset[str]:
        if self.op == "size":
            return frozenset({self.args[0]})
        if self.op == "const":
            return frozenset()
        return frozenset().union(*(a.sizes for a in self.args))


def _wrapped(e: Expr) -> str:
    return f"({e.text})" if e.op in ("+", "-") else e.text


def const(value: int) -> Expr:
    return Expr("const", (int(value),))


def size(name: str) -> Expr:
    return Expr("size", (name,))


_BINARY: dict[str, Callable] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
}


def next_power_of_2(x):
    """triton.next_power_of_2, on an int or an array of them."""
    x = np.maximum(np.asarray(x, dtype=np.int64), 1)
    return (2 ** np.ceil(np.log2(x))).astype(np.int64)


_CALLS: dict[str, Callable] = {
    "next_power_of_2": next_power_of_2,
    "cdiv": lambda a, b: -(-a // b),
    "max": np.maximum,
    "min": np.minimum,
}


def evaluate(e: Expr, env: dict[str, Any]) -> Any:
    """The expression at every point: ENV holds each size's values (arrays of one shape)."""
    if e.op == "const":
        return np.int64(e.args[0])
    if e.op == "size":
        return env[e.args[0]]
    values = [evaluate(a, env) for a in e.args]
    if e.op in _BINARY:
        return _BINARY[e.op](*values)
    return _CALLS[e.op](*values)


_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
_FUNCTIONS = {"next_power_of_2": "next_power_of_2", "cdiv": "cdiv", "max": "max", "min": "min"}


def from_source(
    node: ast.expr, sizes: frozenset[str], resolve: Callable[[str], ast.expr | None], depth: int = 0
) -> Expr | None:
    """NODE (a launch argument's expression) as an Expr over SIZES, names resolved through RESOLVE
    (a local assigned once before the launch, a module's constant); None for anything else."""
    if depth > 8:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return const(node.value)
    if isinstance(node, ast.Name):
        if node.id in sizes:
            return size(node.id)
        assigned = resolve(node.id)
        return from_source(assigned, sizes, resolve, depth + 1) if assigned is not None else None
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = (from_source(n, sizes, resolve, depth + 1) for n in (node.left, node.right))
        return Expr(_OPS[type(node.op)], (left, right)) if left is not None and right is not None else None
    if isinstance(node, ast.Call) and not node.keywords:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in _FUNCTIONS:
            args = [from_source(a, sizes, resolve, depth + 1) for a in node.args]
            return Expr(_FUNCTIONS[name], tuple(args)) if args and None not in args else None
    return None
