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

_ALIAS_DEFINITION = re.compile(r"^(#\w+)\s*=\s*(#ttg\.\w+<\{.*\}>)\s*$", re.MULTILINE)
_HEADER = re.compile(r"#ttg\.(\w+)<\{")
_BRACKET = re.compile(r"[\[<{\]>}]")
_ITEM_END = re.compile(r"[\[<{\]>},]")
_SPACE = re.compile(r"\s*")
_INT_LIST = re.compile(r"\[\s*(?:-?\d{1,18}\s*(?:,\s*-?\d{1,18}\s*)*)?\]")
# Where a type's angle brackets are on a line: string literals (maybe unclosed), `->`, `tensor<`, `<`, `>`, `,`.
_TYPE_SCAN = re.compile(r'"(?:\\.|[^"\\])*"?|->|tensor<|[<>,]')
_DIMS = re.compile(r"(\d{1,18}(?:x\d{1,18})*)x")
_ENCODING = re.compile(r"\s*#[\w.]+")
MAX_DEPTH = 64  # layouts nested deeper (a real one nests 3 deep) are refused: each level copies its text
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
        text = aliases[text].strip()
    return _Reader(aliases).read(text)


def aliases_of(ttgir: str) -> dict[str, str]:
    """The layout aliases a TTGIR module defines: `#blocked1 = #ttg.blocked<{...}>`."""
    return {name: text for name, text in _ALIAS_DEFINITION.findall(ttgir)}


def tensor_type(line: str) -> tuple[tuple[int, ...], str] | None:
    """The shape and layout of the last tensor type on a TTGIR line (an op's result).

    One scan matches every `<` with its `>` (outside string literals, `->` aside) and notes the
    first comma directly inside each; a `tensor<DIMSxTYPE, #LAYOUT>` is checked as it closes.
    """
    opened: list[list[int]] = []  # per open `<`: [index after it, 1 if it is `tensor<`, its first comma or -1]
    closes: dict[int, int] = {}  # index after a `<` -> index of its `>`
    found = None
    for match in _TYPE_SCAN.finditer(line):
        token = match.group()
        if token == ",":
            if opened and opened[-1][2] < 0:
                opened[-1][2] = match.start()
        elif token in ("<", "tensor<"):
            opened.append([match.end(), token == "tensor<", -1])
        elif token == ">" and opened:
            start, is_tensor, comma = opened.pop()
            closes[start] = match.start()
            if is_tensor and comma >= 0:
                found = _tensor(line, start, comma, match.start(), closes) or found
    return found


def _tensor(line: str, start: int, comma: int, end: int, closes: dict[int, int]):
    """line[start:end] as `DIMSxTYPE, #LAYOUT` (a name, maybe with `<{...}>`), or None."""
    dims = _DIMS.match(line, start, comma)
    encoding = _ENCODING.match(line, comma + 1, end)
    if not dims or not encoding:
        return None
    after = encoding.end()
    if after != end and not (
        line.startswith("<{", after) and closes.get(after + 1) == end - 1 and line[end - 2] == "}"
    ):
        return None
    return tuple(int(d) for d in dims.group(1).split("x")), line[comma + 1 : end].strip()


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
    bad = next((d for d in shape if d <= 0 or d & (d - 1)), None)
    if not shape or bad is not None:
        raise UsageError(f"--shape {text}: {bad} is wrong: every size must be a power of two")
    return shape


class _Frame:
    """A layout being read: `#ttg.KIND<{key = value, ...}>` at text[start:end]."""

    def __init__(self, text: str, brackets: dict[int, int], start: int, end: int, key: str | None, alias: str | None):
        header = _HEADER.match(text, start, end)
        if not header or brackets.get(header.end() - 2) != end - 1 or brackets.get(header.end() - 1) != end - 2:
            raise UsageError(
                f"not a TTGIR layout: '{text[start:end][:80]}'",
                hint="e.g. '#ttg.blocked<{sizePerThread = [1, 4], "
                "threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>'",
            )
        self.kind = header.group(1)
        if self.kind not in SUPPORTED:
            raise UsageError(f"#ttg.{self.kind} layouts are not drawn yet; tritonscope draws {', '.join(SUPPORTED)}")
        self.text, self.brackets, self.start, self.end = text, brackets, start, end
        self.position, self.body_end = header.end(), end - 2
        self.key, self.alias = key, alias  # its field in the layout holding it; the alias it defines
        self.fields: dict = {}
        self.height = 1

    def next_item(self) -> tuple[str, int, int] | None:
        """(key, start, end of its value) of the next `key = value`, or None at the end of the body."""
        text = self.text
        if self.position >= self.body_end:
            return None
        position = _SPACE.match(text, self.position, self.body_end).end()
        if position == self.body_end:
            return None
        cursor = position
        while True:  # to the next comma outside brackets, jumping over bracketed parts
            stop = _ITEM_END.search(text, cursor, self.body_end)
            if stop is None or stop.group() == ",":
                break
            close = self.brackets.get(stop.start(), self.body_end)
            if stop.group() not in "[<{" or close >= self.body_end:
                raise UsageError(f"unbalanced brackets in {text[self.start : self.end][:80]}")
            cursor = close + 1
        item_end = stop.start() if stop else self.body_end
        self.position = item_end + 1
        equals = text.find("=", position, item_end)
        if equals < 0:
            raise UsageError(
                f"cannot read '{text[position:item_end].strip()[:80]}' in {text[self.start : self.end][:80]}"
            )
        value_start = _SPACE.match(text, equals + 1, item_end).end()
        value_end = len(text[value_start:item_end].rstrip()) + value_start
        return text[position:equals].strip(), value_start, value_end


class _Reader:
    """Reads a layout and the layouts nested in it (inline or through aliases) on an explicit stack."""

    def __init__(self, aliases: dict[str, str]):
        self.aliases = aliases
        self.done: dict[str, tuple[Layout, int]] = {}  # alias -> (its layout, its height)

    def read(self, text: str) -> Layout:
        stack = [_Frame(text, _brackets(text), 0, len(text), None, None)]
        while True:
            frame = stack[-1]
            item = frame.next_item()
            if item is not None:
                child = self._value(frame, *item, stack)
                if child is not None:
                    if len(stack) >= MAX_DEPTH:
                        raise UsageError(f"layout nested deeper than {MAX_DEPTH} levels: '{text[:80]}'")
                    stack.append(child)
                continue
            stack.pop()
            layout = Layout(frame.kind, frame.fields, frame.text[frame.start : frame.end])
            if frame.alias is not None:
                self.done[frame.alias] = (layout, frame.height)
            if not stack:
                return layout
            self._set(stack[-1], frame.key, layout, frame.height)

    def _value(self, frame: _Frame, key: str, start: int, end: int, stack: list[_Frame]) -> _Frame | None:
        """Sets a plain value in frame.fields; for a nested layout not read yet, the frame that reads it."""
        text = frame.text
        if not text.startswith("#", start):
            frame.fields[key] = _scalar(text[start:end])
            return None
        name = text[start:end]
        if name in self.aliases:
            if name in self.done:
                self._set(frame, key, *self.done[name])
                return None
            if any(f.alias == name for f in stack):
                raise UsageError(f"layout alias {name} refers to itself")
            definition = self.aliases[name].strip()
            return _Frame(definition, _brackets(definition), 0, len(definition), key, name)
        return _Frame(text, frame.brackets, start, end, key, None)

    @staticmethod
    def _set(frame: _Frame, key: str, layout: Layout, height: int) -> None:
        frame.fields[key] = layout
        frame.height = max(frame.height, height + 1)
        if frame.height > MAX_DEPTH:
            raise UsageError(
                f"layout nested deeper than {MAX_DEPTH} levels: '{frame.text[frame.start : frame.end][:80]}'"
            )


def _brackets(text: str) -> dict[int, int]:
    """Index of each `[`, `<`, `{` -> index of the bracket closing it (any kind closes any, as nesting depth)."""
    opened, pairs = [], {}
    for match in _BRACKET.finditer(text):
        if match.group() in "[<{":
            opened.append(match.start())
        elif opened:
            pairs[opened.pop()] = match.start()
    return pairs


def _scalar(text: str):
    if _INT_LIST.fullmatch(text):
        inner = text[1:-1].strip()
        return [int(v) for v in inner.split(",")] if inner else []
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


_POWERS_OF_TWO = ("sizePerThread", "threadsPerWarp", "warpsPerCTA", "CTAsPerCGA", "CTASplitNum")
_FIELD_LIMIT = 1 << 16  # far above any real layout; Triton's bindings take 32-bit values


def _value_problem(layout: Layout) -> str | None:
    """A number Triton's bindings would refuse with a dump of their signature (negative, huge), a
    size that is no power of two, an order that is no permutation, per-dimension lists of unequal length."""
    fields = layout.fields
    for key, value in fields.items():
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, int) and not 0 <= item < _FIELD_LIMIT:
                return f"{key} = {value}: {item} is out of range (0 to {_FIELD_LIMIT - 1})"
        if key in _POWERS_OF_TWO and isinstance(value, list):
            bad = next((v for v in value if not isinstance(v, int) or v <= 0 or v & (v - 1)), None)
            if bad is not None:
                return f"{key} = {value}: {bad} is not a positive power of two"
    order = fields.get("order")
    if isinstance(order, list) and sorted(order) != list(range(len(order))):
        return f"order = {order}: it lists each dimension once, 0 to {len(order) - 1}"
    parent = fields.get("parent")
    inner = rank(parent) if isinstance(parent, Layout) else None
    if layout.kind == "slice" and isinstance(fields.get("dim"), int) and inner is not None and fields["dim"] >= inner:
        return f"dim = {fields['dim']}: the parent layout has {inner} dimensions, numbered from 0"
    if layout.kind == "blocked":
        lengths = {k: len(fields[k]) for k in ("sizePerThread", "threadsPerWarp", "warpsPerCTA", "order")
                   if isinstance(fields.get(k), list)}  # fmt: skip
        if len(set(lengths.values())) > 1:
            return f"sizePerThread, threadsPerWarp, warpsPerCTA and order give one value per dimension: {lengths}"
    return None


def field_problem(layout: Layout) -> str | None:
    """What Triton would abort on in a layout's fields, said first (None when they look right)."""
    fields = layout.fields
    wrong = _value_problem(layout)
    if wrong is not None:
        return wrong
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
