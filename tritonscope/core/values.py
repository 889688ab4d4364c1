"""Typed values of constexprs and arguments, and the one parser of the text that names them.

What the user types (`-c BLOCK=1024`, `-a x_ptr='*i32'`, `--vary reduction=mean,sum`) is
parsed here once, into Python values; later steps never parse text again.

- int, float, bool (true/false), None;
- a Triton type: `TypeName("fp16")`, `TypeName("*i32")` (fp16, tl.float16, torch.float16,
  int32, i32 are all the same type);
- a Gluon layout: `LayoutName("gl.BlockedLayout([1], [32], [4], [0])")`, for a kernel that takes
  its layout as a constexpr (`layout: gl.constexpr`), built by Triton's Gluon at compile time;
- a tuple of these, in parentheses: `(64, 128)`, `(1,)` (a constexpr a kernel indexes or unpacks);
- anything else is a string; quoting ("1", 'fp16') forces a string.
"""

from __future__ import annotations

import math
import re
from typing import Any

SCALAR_TYPES = (
    "i8",
    "i16",
    "i32",
    "i64",
    "u1",
    "u8",
    "u16",
    "u32",
    "u64",
    "fp8e4nv",
    "fp8e5",
    "fp8e4b15",
    "fp8e4b8",
    "fp8e5b16",
    "fp16",
    "bf16",
    "fp32",
    "fp64",
)
_TYPE_ALIASES = {
    # Triton's launcher canonicalizes every boolean to u1 (triton/_utils.py), pointers to bool too.
    "bool": "u1",
    "int1": "u1",
    "i1": "u1",
    "int": "i32",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint1": "u1",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "float16": "fp16",
    "half": "fp16",
    "bfloat16": "bf16",
    "float32": "fp32",
    "float": "fp32",
    "float64": "fp64",
    "double": "fp64",
    "float8_e4m3fn": "fp8e4nv",
    "float8e4nv": "fp8e4nv",
    "float8_e5m2": "fp8e5",
    "float8e5": "fp8e5",
    "float8_e4m3fnuz": "fp8e4b8",
    "float8e4b8": "fp8e4b8",
    "float8_e5m2fnuz": "fp8e5b16",
    "float8e5b16": "fp8e5b16",
    "float8e4b15": "fp8e4b15",
}
_POWER = re.compile(r"^\s*(-?\d+)\s*\*\*\s*(\d+)\s*$")
INT64 = (-(2**63), 2**64 - 1)  # what an integer argument can hold (i64 or u64)


class TypeName(str):
    """A Triton type written as Triton's signatures write it: fp16, i32, *bf16."""

    __slots__ = ()

    @property
    def is_pointer(self) -> bool:
        return self.startswith("*")

    @property
    def is_descriptor(self) -> bool:
        return self.startswith("tensordesc<")

    @property
    def element(self) -> str:
        return self.removeprefix("*")


# A Gluon kernel's descriptor also names its shared layout: tensordesc<fp16[64, 64],NVMMASharedLayout(...)>.
_TENSOR_DESCRIPTOR = re.compile(r"^tensordesc<\s*([\w.]+)\s*\[([\d,\s]+)\]\s*(?:,\s*(\w+\(.*\)))?\s*>$")


I32 = (-(2**31), 2**31 - 1)  # the integers Triton's launcher passes as i32


def int_type(value: int) -> str:
    """An integer argument's type as Triton's launcher gives it: i32, u64 from 2**63, else i64."""
    if I32[0] <= value <= I32[1]:
        return "i32"
    return "u64" if 2**63 <= value < 2**64 else "i64"


def canonical_type(text: str) -> TypeName | None:
    """The Triton type named by `text` (fp16, tl.float16, torch.int32, *i32, tensordesc<bf16[64, 64]>
    ...), or None."""
    name = text.strip()
    descriptor = _TENSOR_DESCRIPTOR.match(name)
    if descriptor:  # a TMA tensor descriptor, as Triton's signatures write it
        element = canonical_type(descriptor.group(1))
        shape = ", ".join(d.strip() for d in descriptor.group(2).split(",") if d.strip())
        layout = f",{descriptor.group(3)}" if descriptor.group(3) else ""
        return TypeName(f"tensordesc<{element}[{shape}]{layout}>") if element and not element.is_pointer else None
    pointer = name.startswith("*")
    name = name.removeprefix("*").strip()
    for prefix in ("tl.", "triton.language.", "torch."):
        name = name.removeprefix(prefix)
    name = _TYPE_ALIASES.get(name, name)
    if name not in SCALAR_TYPES:
        return None
    return TypeName(f"*{name}" if pointer else name)


class LayoutName(str):
    """A Gluon layout as Python writes it, `gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])`: a string,
    so requests stay plain data; triton_api/kernels.py builds the layout object from it."""

    __slots__ = ()


# A call of one of Gluon's layout classes (gl.X, ttgl.X or bare): the text a user gives for a layout constexpr.
_GLUON_LAYOUT = re.compile(r"^(?:(?:gl|ttgl|ttgl\.nvidia\.\w+|gl\.amd)\.)?[A-Z]\w*Layout\(.*\)$", re.DOTALL)


def parse(text: str) -> Any:
    """One value from user text, by the rules in this module's docstring."""
    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "\"'":
        return stripped[1:-1]
    if stripped == "None":
        return None
    if stripped.lower() in ("true", "false"):
        return stripped.lower() == "true"
    number = parse_number(stripped)
    if number is not None:
        return number
    if _GLUON_LAYOUT.match(stripped):
        return LayoutName(stripped)
    if stripped.startswith("(") and stripped.endswith(")"):
        items = _tuple_items(stripped[1:-1])
        if items is not None:
            return tuple(parse(item) for item in items)
    return canonical_type(stripped) or stripped


def _tuple_items(inner: str) -> list[str] | None:
    """The items of a tuple's text between its parentheses, split at top-level commas; None where it
    is not a tuple (no comma: `(64)` is a string, as Python's `(64)` is no tuple)."""
    items, depth, start = [], 0, 0
    for at, char in enumerate(inner):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append(inner[start:at])
            start = at + 1
    if not items:
        return [] if not inner.strip() else None
    tail = inner[start:]
    return [*items, tail] if tail.strip() else items


def parse_number(text: str) -> int | float | None:
    """An int (any base Python accepts, or B**E) or float literal; None for anything else."""
    power = _POWER.match(text)
    if power and int(power.group(2)) <= 256:
        return int(power.group(1)) ** int(power.group(2))
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def format_value(value: Any) -> str:
    """A value as the user would type it; `parse(format_value(v)) == v` for every value above."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or isinstance(value, (int, float, TypeName, LayoutName)):
        return str(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(map(format_value, value)) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, str):
        back = parse(value)
        return value if type(back) is str and back == value else f'"{value}"'
    return repr(value)


def jsonable(value: Any) -> Any:
    """A value for JSON: non-finite floats become strings ("nan", "inf"), which strict parsers accept."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (TypeName, LayoutName)):
        return str(value)
    return value
