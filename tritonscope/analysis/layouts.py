"""TTGIR layouts: read from their text, turned into who-owns-what by Triton's linear layouts.

A distributed layout says which thread (lane of a warp, and warp) holds each element of a
tensor, and in which of its registers. Triton can express every such layout as a linear
layout: bases for registers, lanes and warps whose XOR gives an element's coordinates.
triton_api/layouts.py asks Triton for those bases, so no hardware rule is re-derived here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.errors import UsageError

_LAYOUT = re.compile(r"^#ttg\.(\w+)<\{(.*)\}>$", re.DOTALL)
_ALIAS_DEFINITION = re.compile(r"^(#\w+)\s*=\s*(#ttg\.\w+<\{.*\}>)\s*$", re.MULTILINE)
_TENSOR = re.compile(r"tensor<([0-9x]+)x[^,>]*?(?:<[^>]*>)?[^,>]*,\s*(#[\w.]+(?:<\{.*?\}>)?)>")
SUPPORTED = ("blocked", "nvidia_mma", "dot_op", "slice")


@dataclass(frozen=True)
class Layout:
    kind: str  # blocked, nvidia_mma, dot_op, slice
    fields: dict  # its parameters; a parent layout is a Layout too
    text: str


@dataclass(frozen=True)
class Ownership:
    """For one tensor shape: who holds each element."""

    shape: tuple[int, ...]
    owners: dict[tuple[int, ...], list[tuple[int, int, int]]]  # element -> [(warp, lane, register)]
    warps: int
    lanes: int
    registers: int


def parse(text: str, aliases: dict[str, str] | None = None) -> Layout:
    """A layout from its TTGIR text, `#ttg.blocked<{...}>`, or an alias of a module (`#blocked1`)."""
    text = text.strip()
    aliases = aliases or {}
    if text in aliases:
        text = aliases[text]
    match = _LAYOUT.match(text)
    if not match:
        raise UsageError(
            f"not a TTGIR layout: '{text[:80]}'",
            hint="e.g. '#ttg.blocked<{sizePerThread = [1, 4], "
            "threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>'",
        )
    kind, body = match.groups()
    if kind not in SUPPORTED:
        raise UsageError(f"#ttg.{kind} layouts are not drawn yet; tritonscope draws {', '.join(SUPPORTED)}")
    fields = {}
    for item in _split(body):
        key, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"cannot read '{item}' in {text[:80]}")
        fields[key.strip()] = _value(value.strip(), aliases)
    return Layout(kind, fields, text)


def aliases_of(ttgir: str) -> dict[str, str]:
    """The layout aliases a TTGIR module defines: `#blocked1 = #ttg.blocked<{...}>`."""
    return {name: text for name, text in _ALIAS_DEFINITION.findall(ttgir)}


def tensor_type(line: str) -> tuple[tuple[int, ...], str] | None:
    """The shape and layout of the last tensor type on a TTGIR line (an op's result)."""
    found = _TENSOR.findall(line)
    if not found:
        return None
    dims, layout = found[-1]
    return tuple(int(d) for d in dims.split("x")), layout


def ownership(bases: dict[str, list[list[int]]], shape: tuple[int, ...]) -> Ownership:
    """Who holds each element, from a linear layout's register, lane and warp bases."""
    owners: dict[tuple[int, ...], list[tuple[int, int, int]]] = {}
    registers, lanes, warps = (1 << len(bases[k]) for k in ("register", "lane", "warp"))
    for warp in range(warps):
        for lane in range(lanes):
            for register in range(registers):
                element = [0] * len(shape)
                for kind, index in (("register", register), ("lane", lane), ("warp", warp)):
                    for bit, basis in enumerate(bases[kind]):
                        if index >> bit & 1:
                            element = [e ^ b for e, b in zip(element, basis, strict=True)]
                owners.setdefault(tuple(element), []).append((warp, lane, register))
    return Ownership(tuple(shape), owners, warps, lanes, registers)


def parse_shape(text: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(d) for d in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--shape expects sizes like 64x64, got '{text}'") from None
    if not shape or any(d <= 0 or d & (d - 1) for d in shape):
        raise UsageError(f"--shape {text}: every size must be a power of two")
    return shape


def _split(body: str) -> list[str]:
    """Top-level comma-separated items, ignoring commas inside [], <> and {}."""
    items, depth, current = [], 0, []
    for char in body:
        if char in "[<{":
            depth += 1
        elif char in "]>}":
            depth -= 1
        if char == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    if "".join(current).strip():
        items.append("".join(current).strip())
    return items


def _value(text: str, aliases: dict[str, str]):
    if text.startswith("["):
        inner = text.strip("[]").strip()
        return [int(v) for v in inner.split(",")] if inner else []
    if text.startswith("#"):
        return parse(text, aliases)
    try:
        return int(text.split(":")[0].strip())
    except ValueError:
        return text


def rank(layout: Layout) -> int | None:
    """The number of tensor dimensions a layout lays out; None when its fields do not say."""
    fields = layout.fields
    if layout.kind == "blocked" and isinstance(fields.get("sizePerThread"), list):
        return len(fields["sizePerThread"])
    if layout.kind == "nvidia_mma" and isinstance(fields.get("warpsPerCTA"), list):
        return len(fields["warpsPerCTA"])
    parent = fields.get("parent")
    if not isinstance(parent, Layout):
        return None
    inner = rank(parent)
    if inner is None:
        return None
    return inner - 1 if layout.kind == "slice" else inner


def field_problem(layout: Layout) -> str | None:
    """What Triton would abort on in a layout's fields, said first (None when they look right)."""
    fields = layout.fields
    if layout.kind == "nvidia_mma":
        major, shape = fields.get("versionMajor"), fields.get("instrShape")
        if major not in (2, 3):
            return f"versionMajor = {major}: nvidia_mma layouts are version 2 or 3"
        fits = shape == [16, 8] if major == 2 else isinstance(shape, list) and len(shape) == 3 and shape[0] == 16
        if not fits:
            wanted = "[16, 8]" if major == 2 else "[16, N, K] (e.g. [16, 64, 16])"
            return f"instrShape = {shape}: an mma v{major} layout's instrShape is {wanted}"
    parent = fields.get("parent")
    return field_problem(parent) if isinstance(parent, Layout) else None
