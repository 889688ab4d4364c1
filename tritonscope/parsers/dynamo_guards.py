"""Reads torch.compile's (torch._dynamo's) guards on sizes and its recompile reasons, as it prints them
(TORCH_LOGS=guards, TORCH_LOGS=recompiles) and a capture's torch_compiles.jsonl keeps them:

    TENSOR_MATCH: check_tensor(L['h'], FakeTensor, ..., torch.bfloat16, device=0, requires_grad=False,
        size=[None, 1, 256], stride=[256, 256, 1])        (one line: None is a dynamic size)
    LAMBDA_GUARD: 2 <= L['h'].size()[0]
    LAMBDA_GUARD: 512*L['h'].size()[1]*L['h'].size()[0] <= 2147483647
    0/0: tensor 'h' size mismatch at index 1. expected 128, actual 1        (a reason)
    0/2: 2 <= h.size()[1]  # return h + ... (user code shown is first use ...)
    0/1: 2 <= x.size()[0] <= 2147483647  # ...    (torch 2.11 and later: both bounds, the lower one failed)

An input is named as dynamo's source names it, without its frame's `L[...]`: `h`, `self.up`. A line
of another kind is left out: these are the guards a size decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Dim = tuple[str, int]  # (input, dimension): ("h", 0) is h.size()[0]

# an input as dynamo's source names it: L['x'], L['self'].up, L['kwargs']['input_ids'], L['args'][0]
_SOURCE = r"L\['(?P<name>[^']+)'\](?P<rest>(?:\.[A-Za-z_]\w*|\['[^']+'\]|\[\d+\])*)"
_MATCH = re.compile(r"check_tensor\(" + _SOURCE + r".*?\bsize=\[(?P<sizes>[^\]]*)\]")
_SIZE_TERM = re.compile(
    r"(?:L\['(?P<name>[^']+)'\](?P<rest>(?:\.[A-Za-z_]\w*|\['[^']+'\]|\[\d+\])*)|(?P<bare>[A-Za-z_][\w.]*(?:\['[^']+'\]|\[\d+\])*))"
    r"\.size\(\)\[(?P<dim>\d+)\]"
)
_BOUND = re.compile(
    r"^\s*(?:(?P<low>-?\d+)\s*(?P<lop><=|<)\s*(?P<lexpr>[^<>=]+?)|(?P<hexpr>[^<>=]+?)\s*(?P<hop><=|<|==)\s*(?P<high>-?\d+))\s*$"
)
_CHAINED = re.compile(r"^(?P<low>-?\d+)\s*(?P<op><=|<)\s*(?P<expr>[^<>=]+?)\s*(?P<hop><=|<)\s*(?P<high>-?\d+)$")
_NO_LIMIT = 2**31 - 1  # an upper bound from here up is dynamo's default range of a size, no guard of the program's
_MISMATCH = re.compile(
    r"^(?P<entry>\d+/\d+): tensor '(?P<name>.+?)' size mismatch at index (?P<dim>\d+)\. "
    r"expected (?P<expected>\d+), actual (?P<actual>\d+)"
)
_REASON_GUARD = re.compile(r"^(?P<entry>\d+/\d+): (?P<guard>[^#]+?)\s*(?:#.*)?$", re.DOTALL)


@dataclass(frozen=True)
class Bound:
    """`coefficient * product of dims  op  limit` (op <=, < or ==), or with `lower`, `limit op product`."""

    coefficient: int
    dims: tuple[Dim, ...]
    op: str
    limit: int
    lower: bool = False  # `2 <= L['h'].size()[0]`: the limit is a lower bound

    def holds(self, sizes: dict[str, tuple[int, ...]]) -> bool | None:
        """Whether the sizes keep it; None when a dim is not among them."""
        value = self.coefficient
        for name, dim in self.dims:
            shape = sizes.get(name)
            if shape is None or dim >= len(shape):
                return None
            value *= shape[dim]
        if self.lower:
            return self.limit <= value if self.op == "<=" else self.limit < value
        return {"<=": value <= self.limit, "<": value < self.limit, "==": value == self.limit}[self.op]

    @property
    def text(self) -> str:
        product = "*".join(f"{n}.size()[{d}]" for n, d in self.dims)
        product = f"{self.coefficient}*{product}" if self.coefficient != 1 else product
        return f"{self.limit} {self.op} {product}" if self.lower else f"{product} {self.op} {self.limit}"


@dataclass(frozen=True)
class Guards:
    """An entry's guards on sizes: each input's sizes (None where dynamic) and the bounds on them."""

    sizes: dict[str, tuple[int | None, ...]]
    bounds: tuple[Bound, ...]


@dataclass(frozen=True)
class Reason:
    """Why one earlier entry did not serve a call: the entry ("0/2"), the dim, and what it wanted."""

    entry: str
    dim: Dim | None
    expected: str  # "128", "2 <= h.size()[0]"
    actual: int | None
    text: str
    bounds: tuple[Bound, ...] = ()  # a guard's bounds, read (none for a size mismatch)


_ITEM = re.compile(r"\w+\[(?:(\d+)|'(\w+)'|\"(\w+)\")\]")


def item_of(name: str) -> int | str | None:
    """Which item of a starred parameter an input is, as dynamo names it: `args[0]` 0, `kwargs['input_ids']`
    'input_ids'; None for a parameter of its own (`x`)."""
    item = _ITEM.fullmatch(name)
    if item is None:
        return None
    return int(item[1]) if item[1] is not None else item[2] or item[3]


def _input(name: str, rest: str | None) -> str:
    return name + (rest or "")


def guards(lines: list[str]) -> Guards:
    """The size guards among an entry's printed guard lines."""
    sizes: dict[str, tuple[int | None, ...]] = {}
    bounds: list[Bound] = []
    for line in lines:
        text = line.split("  # ")[0]
        match = _MATCH.search(text)
        if match:
            sizes[_input(match["name"], match["rest"])] = tuple(_size(s) for s in match["sizes"].split(","))
            continue
        bounds += _bounds(text.split(":", 1)[1] if text.startswith("LAMBDA_GUARD:") else text)
    return Guards(sizes, tuple(bounds))


def _size(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.lstrip("-").isdigit() else None


def _bounds(text: str) -> tuple[Bound, ...]:
    """The bounds a guard line sets: two for a chained one whose upper bound is the program's (`2 <=
    x.size()[1] <= 32`, from an `if n > 32` in the compiled function), else one or none."""
    chained = _CHAINED.match(text.strip())
    if not chained:
        bound = _bound(text)
        return () if bound is None else (bound,)
    lower = _bound(f"{chained['low']} {chained['op']} {chained['expr']}")
    if lower is None:
        return ()
    if int(chained["high"]) >= _NO_LIMIT:  # `2 <= x.size()[0] <= 2147483647`: the lower bound alone
        return (lower,)
    return (lower, Bound(lower.coefficient, lower.dims, chained["hop"], int(chained["high"])))


def _bound(text: str) -> Bound | None:
    match = _BOUND.match(text.strip())
    if not match:
        return None
    expression = match["lexpr"] or match["hexpr"]
    product = _product(expression)
    if product is None:
        return None
    coefficient, dims = product
    if match["low"] is not None:
        return Bound(coefficient, dims, match["lop"], int(match["low"]), lower=True)
    return Bound(coefficient, dims, match["hop"], int(match["high"]))


def _product(expression: str) -> tuple[int, tuple[Dim, ...]] | None:
    """`512*L['h'].size()[1]*L['h'].size()[0]` as (512, (("h", 1), ("h", 0))); None for anything else."""
    coefficient, dims = 1, []
    for factor in expression.strip().split("*"):
        factor = factor.strip()
        if factor.isdigit():
            coefficient *= int(factor)
            continue
        term = _SIZE_TERM.fullmatch(factor)
        if term is None:
            return None
        name = _input(term["name"], term["rest"]) if term["name"] else term["bare"]
        dims.append((name, int(term["dim"])))
    return (coefficient, tuple(dims)) if dims else None


def reason(text: str) -> Reason:
    """One recompile reason, read; one it cannot read keeps its text, with no dim."""
    match = _MISMATCH.match(text)
    if match:
        dim = (match["name"], int(match["dim"]))
        return Reason(match["entry"], dim, match["expected"], int(match["actual"]), text)
    match = _REASON_GUARD.match(text.strip())
    if match:
        bounds = _bounds(match["guard"])
        if bounds and len(bounds[0].dims) == 1:
            expected = " and ".join(b.text for b in bounds)
            return Reason(match["entry"], bounds[0].dims[0], expected, None, text, bounds)
        return Reason(match["entry"], None, match["guard"].strip(), None, text)
    return Reason("", None, text.strip(), None, text)


# dynamo's note of the user code behind a guard: `... and if n > 32:  # dir/prog.py:7 in f (...)`
_USER_CODE = re.compile(r"(?:^|\band |#\s)\s*(?P<code>[^#]+?)\s+#\s+\S*?(?P<file>[^/\s]+\.py):(?P<line>\d+) in \w+")


def tested_at(text: str) -> str | None:
    """Where the program's code tests the size a guard bounds, as a reason's note names it (the last
    line of user code it shows: `prog.py:7 (if n > 32:)`); None where the note names none."""
    found = list(_USER_CODE.finditer(text))
    if not found:
        return None
    last = found[-1]
    return f"{last['file']}:{last['line']} ({last['code'].strip()})"
