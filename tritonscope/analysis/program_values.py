"""A kernel's integer values for every program of a launch at once: what its index arithmetic gives.

Each value is held per program as numpy arrays (one entry per program, or one for all): an integer
tensor as the least and greatest of its elements (`Span`: `tl.arange(0, 64) + pid * 64` is
pid*64 .. pid*64+63), a pointer as its argument and the byte offsets of its least and greatest
element (`Address`), a mask as the share of its elements that are true (`Share`: `offs < n` over
the 64 offsets of the last block, or 0 and 1 for a scalar). What comes from memory is not known:
a value computed from a load says so (`data`: how many values the load gave, 1 for a scalar: an
embedding's 4 row indices give each of the rows' 512 addresses one) and where it was read
(`origin`: two programs that load from the same addresses get the same values: a mixture of
experts' blocks of one expert read its weights), and a float is not a value here (None): an integer
converted from one is data, read from nowhere known. Data taken modulo a constant, masked by one or
capped (`x % 256`, `x & 255`, `min(x, 255)`), is still data but bounded (`bounded`: its span holds
every value it may take, data included: a histogram's bins, a lookup table), and so is what follows
from bounded values alone. `apply`
gives an op's result from its operands' values; analysis/program_traffic.py walks the kernel with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

_PREDICATE = re.compile(r"arith\.cmpi\s+(\w+)")
_SHAPE = re.compile(r"tensor<((?:\d+x)+)")
_RANGE = re.compile(r"end\s*=\s*(-?\d+)\s*:\s*i32,\s*start\s*=\s*(-?\d+)")
_CONSTANT = re.compile(
    r"arith\.constant\s+(?:dense<)?(-?\d+|true|false)>?(?:\s*:\s*(?:tensor<[^>]*x)?(?:i(\d+)\b|index)|\s*$)"
)


@dataclass(frozen=True)
class Span:
    """An integer (tensor), per program: its least and greatest element."""

    lo: np.ndarray
    hi: np.ndarray
    data: int = 0  # a term loaded from memory: 0 none, else how many values the load gave
    origin: np.ndarray | None = None  # per program, where that data was read (`_mix`: the loads and their addresses)
    bounded: bool = False  # with data: lo .. hi holds every value, the data's too (module docstring)
    distinct: int = 0  # at most this many different elements (0: as many as its span has values; `count`)

    @property
    def exact(self) -> bool:
        return not self.data and bool(np.all(self.lo == self.hi))


@dataclass(frozen=True)
class Address:
    """A pointer (tensor), per program: the pointer argument it is an offset of, and the byte offsets
    of its least and greatest element."""

    base: str
    lo: np.ndarray
    hi: np.ndarray
    element: int  # bytes
    data: int = 0
    origin: np.ndarray | None = None  # as Span's
    bounded: bool = False  # as Span's
    distinct: int = 0  # as Span's


@dataclass(frozen=True)
class Share:
    """A mask (or a condition), per program: the share of its elements that are true."""

    true: np.ndarray


Value = Span | Address | Share | None


def scalar(value: int) -> Span:
    held = np.array([value], dtype=np.int64)
    return Span(held, held)


def loaded(count: int, origin: np.ndarray | None = None) -> Span:
    """An integer read from memory, `count` values of it: not known, only that it is data, and where it
    was read (`origin`: programs that read the same addresses read the same values)."""
    return Span(np.zeros(1, np.int64), np.zeros(1, np.int64), max(count, 1), origin)


def mix(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    """Two origins as one, per program (a number that tells apart what they tell apart)."""
    if a is None or b is None:
        return a if b is None else b
    return np.asarray(a, np.int64) * np.int64(1_000_003) + np.asarray(b, np.int64)  # wraps: a hash


def constant(text: str) -> Value:
    """`arith.constant 31 : i32`, `dense<32> : tensor<64x32xi32>`, `true`; a float is not a value here."""
    match = _CONSTANT.search(text)
    if match is None:
        return None
    literal, bits = match.groups()
    if literal in ("true", "false") or bits == "1":  # `true` alone carries no type
        return Share(np.array([1.0 if literal in ("true", "1", "-1") else 0.0]))
    return scalar(int(literal))


def make_range(text: str) -> Span:
    match = _RANGE.search(text)
    end, start = (int(g) for g in match.groups()) if match else (1, 0)
    return Span(np.array([start], np.int64), np.array([end - 1], np.int64))


def count(value: Span | Address) -> int:
    """At most how many different elements a known tensor holds, in every program (0: data, not
    known): no more than its span has values, nor than its operands' counts multiplied (`distinct`):
    a packed weight's rows `offs_k // 8` are 8 of 64, and the tile they address 8 rows, not 64."""
    if value.data:
        return 0
    step = value.element if isinstance(value, Address) else 1
    width = int(((value.hi - value.lo) // step).max()) + 1
    return min(value.distinct, width) if value.distinct else width


def _distinct(a: Span | Address, b: Span | Address) -> int:
    """A result's elements, each made of one of a's and one of b's: at most their counts' product."""
    return count(a) * count(b)


def _data(*values: Span) -> int:
    return max(v.data for v in values)


def _origin(a: Span | Address, b: Span | Address) -> np.ndarray | None:
    return mix(a.origin, b.origin)


def _bounded(*values: Span | Address) -> bool:
    """Whether a result computed from these values' spans bounds its data too: each is known or bounded."""
    return all(not v.data or v.bounded for v in values)


def _add(a: Value, b: Value) -> Value:
    if isinstance(a, Address) and isinstance(b, Span):  # tt.addptr
        lo, hi = a.lo + b.lo * a.element, a.hi + b.hi * a.element
        return Address(a.base, lo, hi, a.element, max(a.data, b.data), _origin(a, b), _bounded(a, b), _distinct(a, b))
    if isinstance(a, Span) and isinstance(b, Span):
        return Span(a.lo + b.lo, a.hi + b.hi, _data(a, b), _origin(a, b), _bounded(a, b), _distinct(a, b))
    return None


def _sub(a: Value, b: Value) -> Value:
    if not isinstance(a, Span) or not isinstance(b, Span):
        return None
    return Span(a.lo - b.hi, a.hi - b.lo, _data(a, b), _origin(a, b), _bounded(a, b), _distinct(a, b))


def _extremes(a: Span, b: Span, combine: Callable) -> Span:
    corners = [combine(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    lo, hi = np.minimum.reduce(corners), np.maximum.reduce(corners)
    return Span(lo, hi, _data(a, b), _scaled_origin(a, b), _bounded(a, b), _distinct(a, b))


def _scaled_origin(a: Span, b: Span) -> np.ndarray | None:
    """The origin of data multiplied or divided by a known value: the data's span is not known, so
    the product's is not either; what tells programs apart is where the data was read and the known
    factor (a split's length read from memory, times the program's split id)."""
    if bool(a.data) == bool(b.data):
        return _origin(a, b)
    data, known = (a, b) if a.data else (b, a)
    return mix(mix(data.origin, known.lo), known.hi) if data.origin is not None else None


def _mul(a: Value, b: Value) -> Value:
    if not isinstance(a, Span) or not isinstance(b, Span):
        return None
    return _extremes(a, b, np.multiply)


def _divide(a: Value, b: Value, ceiling: bool = False) -> Value:
    if isinstance(a, Span) and isinstance(b, Span) and b.data and not b.bounded:  # by data (a length read)
        return Span(np.zeros(1, np.int64), np.zeros(1, np.int64), _data(a, b), _scaled_origin(a, b))
    if not isinstance(a, Span) or not isinstance(b, Span) or np.any((b.lo <= 0) & (b.hi >= 0)):
        return None

    def divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        quotient = np.trunc(x / y) if not ceiling else -np.floor_divide(-x, y)
        return quotient.astype(np.int64)

    return _extremes(a, b, divide)


def _remainder(a: Value, b: Value) -> Value:
    """`x % m` for a constant m > 0: exact where x's elements lie in one period of m, else 0 .. m-1;
    of data, bounded: 0 .. m-1 (data taken as an index: not negative)."""
    if not isinstance(a, Span) or not isinstance(b, Span) or not b.exact or np.any(b.lo <= 0):
        return None
    modulus = b.lo
    if a.data and not a.bounded:
        return Span(np.zeros_like(modulus), modulus - 1, a.data, a.origin, True)
    if np.any(a.lo < 0):
        return None
    same_period = (a.lo // modulus) == (a.hi // modulus)
    lo = np.where(same_period, a.lo % modulus, 0)
    hi = np.where(same_period, a.hi % modulus, modulus - 1)
    return Span(lo, hi, _data(a, b), _origin(a, b), _bounded(a, b), _distinct(a, b))


def _bound(a: Value, b: Value, pick: Callable) -> Value:
    """`min` and `max`; of data, `min(x, c)` for a known c >= 0 is bounded: 0 .. c (data taken as an index:
    not negative, as `x % m` takes it), a histogram's clamp `min(max(x, 0), bins - 1)`."""
    if not isinstance(a, Span) or not isinstance(b, Span):
        return None
    data, cap = (a, b) if b.exact else (b, a)
    if pick is np.minimum and cap.exact and data.data and not data.bounded and bool(np.all(cap.lo >= 0)):
        return Span(np.zeros_like(cap.lo), cap.lo, data.data, data.origin, True)
    return Span(pick(a.lo, b.lo), pick(a.hi, b.hi), _data(a, b), _origin(a, b), _bounded(a, b), _distinct(a, b))


def _shift(a: Value, b: Value, left: bool) -> Value:
    if not isinstance(a, Span) or not isinstance(b, Span) or not b.exact:
        return None
    factor = np.left_shift(np.int64(1), b.lo)
    if left:
        return Span(a.lo * factor, a.hi * factor, a.data, a.origin, a.bounded, count(a))
    return Span(a.lo // factor, a.hi // factor, a.data, a.origin, a.bounded, count(a))


def _logic(a: Value, b: Value, name: str) -> Value:
    """Masks combine as independent shares (a 2-D mask: rows in bounds and columns in bounds); two exact
    integers combine exactly; data masked by a constant (`x & 255`) is bounded by it; any other integer
    bit operation is not followed."""
    if isinstance(a, Share) or isinstance(b, Share):
        x = a.true if isinstance(a, Share) else np.ones(1)
        y = b.true if isinstance(b, Share) else np.ones(1)
        return Share({"arith.andi": x * y, "arith.ori": x + y - x * y, "arith.xori": x + y - 2 * x * y}[name])
    if isinstance(a, Span) and isinstance(b, Span) and a.exact and b.exact:
        exact = {"arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor}[name]
        result = exact(a.lo, b.lo)
        return Span(result, result)
    if name == "arith.andi" and isinstance(a, Span) and isinstance(b, Span):
        data, mask = (a, b) if b.exact else (b, a)
        if mask.exact and data.data and bool(np.all(mask.lo >= 0)):
            return Span(np.zeros_like(mask.lo), mask.lo, data.data, data.origin, True)
    return None


def _less(x: Span, y: Span, strict: bool = True) -> np.ndarray:
    """The share of pairs (an element of x, one of y) with x < y (x <= y), the elements of each taken as
    spread evenly over their span: a scalar against a range of offsets counts the offsets exactly."""
    y_lo, y_hi = (y.lo, y.hi) if strict else (y.lo + 1, y.hi + 1)
    x_width, y_width = x.hi - x.lo + 1, y_hi - y_lo + 1
    if bool(np.all(y_width == 1)):
        return np.clip((y_lo - x.lo) / x_width, 0.0, 1.0)
    if bool(np.all(x_width == 1)):
        return np.clip((y_hi - x.lo) / y_width, 0.0, 1.0)
    return np.where(x.hi < y_lo, 1.0, np.where(x.lo >= y_hi, 0.0, 0.5))


def compare(text: str, a: Value, b: Value) -> Share:
    """`arith.cmpi PRED, a, b` as the share of true elements; a comparison with data all true."""
    if not isinstance(a, Span) or not isinstance(b, Span) or _data(a, b):
        return Share(np.ones(1))
    match = _PREDICATE.search(text)
    predicate = match.group(1) if match else ""
    kind = predicate[-2:] if predicate not in ("eq", "ne") else predicate
    if kind in ("eq", "ne"):
        equal = np.where((a.lo == a.hi) & (b.lo == b.hi), (a.lo == b.lo).astype(float), 0.0)
        return Share(equal if kind == "eq" else 1.0 - equal)
    shares = {"lt": _less(a, b), "le": _less(a, b, False), "gt": _less(b, a), "ge": _less(b, a, False)}
    return Share(shares.get(kind, np.ones(1)))


def select(condition: Value, a: Value, b: Value) -> Value:
    """`arith.select`: one side where the condition is all true or all false (per program: a scalar
    condition, `tl.where(row < n_rows, n_cols, 0)`), else both sides' span."""
    if isinstance(condition, Share) and condition.true.size == 1 and condition.true[0] in (0.0, 1.0):
        return a if condition.true[0] == 1.0 else b
    shares = condition.true if isinstance(condition, Share) else None
    settled = shares is not None and bool(np.all((shares == 0.0) | (shares == 1.0)))
    if settled and isinstance(a, Span) and isinstance(b, Span):
        taken = shares == 1.0
        lo, hi = np.where(taken, a.lo, b.lo), np.where(taken, a.hi, b.hi)
        return Span(lo, hi, _data(a, b), _origin(a, b), _bounded(a, b), max(count(a), count(b)))
    if isinstance(a, Span) and isinstance(b, Span):
        lo, hi = np.minimum(a.lo, b.lo), np.maximum(a.hi, b.hi)
        return Span(lo, hi, _data(a, b), _origin(a, b), _bounded(a, b), count(a) + count(b))
    return None


def union(a: Value, b: Value) -> Value:
    """tt.join and tt.cat: both operands' elements."""
    return select(None, a, b)


_BINARY: dict[str, Callable[[Value, Value], Value]] = {
    "arith.addi": _add,
    "tt.addptr": _add,
    "arith.subi": _sub,
    "arith.muli": _mul,
    "arith.divsi": _divide,
    "arith.divui": _divide,
    "arith.floordivsi": _divide,
    "arith.ceildivsi": lambda a, b: _divide(a, b, ceiling=True),
    "arith.ceildivui": lambda a, b: _divide(a, b, ceiling=True),
    "arith.remsi": _remainder,
    "arith.remui": _remainder,
    "arith.minsi": lambda a, b: _bound(a, b, np.minimum),
    "arith.minui": lambda a, b: _bound(a, b, np.minimum),
    "arith.maxsi": lambda a, b: _bound(a, b, np.maximum),
    "arith.maxui": lambda a, b: _bound(a, b, np.maximum),
    "arith.shli": lambda a, b: _shift(a, b, True),
    "arith.shrsi": lambda a, b: _shift(a, b, False),
    "arith.shrui": lambda a, b: _shift(a, b, False),
    "arith.andi": lambda a, b: _logic(a, b, "arith.andi"),
    "arith.ori": lambda a, b: _logic(a, b, "arith.ori"),
    "arith.xori": lambda a, b: _logic(a, b, "arith.xori"),
}
# Ops whose result holds the same elements as their first operand (a layout, a shape, a width).
SAME = (
    "tt.splat",
    "tt.broadcast",
    "tt.expand_dims",
    "tt.reshape",
    "tt.trans",
    "ttg.convert_layout",
    "arith.extsi",
    "arith.extui",
    "arith.trunci",
    "arith.index_cast",
    "arith.index_castui",
    "arith.bitcast",
    "tt.bitcast",  # a bool pointer's store goes through an i8 pointer: the same addresses
    "tt.split",
)


def apply(name: str, text: str, operands: list[Value]) -> Value:
    """An op's result from its operands' values (None: not an integer this evaluates, or not known)."""
    if name in SAME:
        return operands[0] if operands else None
    if name in _BINARY and len(operands) >= 2:
        return _BINARY[name](operands[0], operands[1])
    if name == "arith.cmpi" and len(operands) >= 2:
        return compare(text, operands[0], operands[1])
    if name == "arith.select" and len(operands) >= 3:
        return select(*operands[:3])
    if name in ("tt.join", "tt.cat") and len(operands) >= 2:
        return union(operands[0], operands[1])
    if name == "arith.constant":
        return constant(text)
    if name == "tt.make_range":
        return make_range(text)
    if name in ("arith.fptosi", "arith.fptoui"):  # an integer made of floats (`(x * bins).to(tl.int32)`):
        return loaded(_elements(text))  # not followed, so taken as data, one value an element
    return None


def _elements(text: str) -> int:
    """The elements of an op's result type (`... to tensor<64x32xi32>`: 2,048; a scalar: 1)."""
    shapes = _SHAPE.findall(text)
    return int(np.prod([int(d) for d in shapes[-1].split("x") if d])) if shapes else 1
