"""Where each element of a shared-memory allocation lives, computed from the shared layout's own
parameters as TTGIR prints them, for the Triton releases that cannot give a shared layout's linear
form (3.5 to 3.8 abort when asked; 3.9 gives it, and tests check these equal Triton's there).

The result is the layout's offset bases: offset 2**i of the allocation holds the element whose
coordinates are bases[i], and offset o the XOR of the bases of o's set bits. The rules follow
Triton's definitions (LinearLayoutConversions.cpp: swizzledSharedToLinearLayout,
nvmmaSharedToLinearLayout, the AMD rotating one; a padded or shared linear layout spells its bases
out). A layout split over several CTAs, or an fp4-padded NVMMA one, gives None: not modelled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = re.compile(r"#ttg\.(\w+)<")
_FIELD = re.compile(r"(\w+)\s*=\s*(\[\[.*?\]\]|\[[^\]]*\]|\w+)")
_PADDING = re.compile(r"(\d+):\+(\d+)")
_SPLIT_COUNTS = ("CTAsPerCGA", "CTASplitNum")  # 3.6 spells a split as counts per dimension
_SPLIT_BASES = ("CGALayout", "cgaLayout", "block")  # later ones (and linear layouts) as bases


@dataclass(frozen=True)
class SharedMapping:
    """A shared layout over one allocation shape: its offset bases, and the padding (a padded
    layout: after every `interval` elements, `padding` more) that moves offsets to addresses."""

    offsets: list[list[int]]
    paddings: tuple[tuple[int, int], ...] = ()


def definition(ttgir: str, alias: str) -> str | None:
    """The text an alias (`#shared1`) stands for in a TTGIR module, or None."""
    found = re.search(rf"^{re.escape(alias)}\s*=\s*(#.*?)\s*$", ttgir, re.MULTILINE)
    return found.group(1) if found else None


def kind(text: str) -> str | None:
    header = _HEADER.match(text.strip())
    return header.group(1) if header else None


def paddings(text: str) -> tuple[tuple[int, int], ...]:
    """A padded_shared layout's (interval, padding) pairs, in elements; () for any other layout."""
    if kind(text) != "padded_shared":
        return ()
    listed = text[text.index("[") : text.index("]") + 1]
    return tuple((int(i), int(p)) for i, p in _PADDING.findall(listed))


def layout_rank(text: str) -> int | None:
    """How many trailing dimensions of an allocation the layout lays out (the rest are buffers)."""
    fields = _fields(text)
    if "order" in fields:
        return len(fields["order"])
    if "offset" in fields:
        return len(fields["offset"][0]) if fields["offset"] else None
    if kind(text) == "nvmma_shared":
        return int(fields.get("rank", 2))
    return None


def mapping(text: str, shape: tuple[int, ...], release: tuple[int, ...] = (3, 6)) -> SharedMapping | None:
    """The offset bases of a shared layout (its TTGIR text) over an allocation of `shape`: leading
    dimensions beyond the layout's rank are whole buffers, one after another. None where the layout
    is not one modelled here, or does not fit the shape (Triton would refuse it too). `release`, the
    Triton that compiled the module: one rule changed after 3.7 (see _nvmma)."""
    fields, name, rank = _fields(text), kind(text), layout_rank(text)
    if rank is None or rank > len(shape) or not all(_power_of_two(s) for s in shape) or _split(fields):
        return None
    inner = tuple(shape[len(shape) - rank :])
    bases: list[list[int]] | None
    if name == "swizzled_shared" or name == "amd_rotating_shared":
        bases = _swizzled(fields, inner, rotating=name == "amd_rotating_shared")
    elif name == "nvmma_shared":
        bases = _nvmma(fields, inner, release)
    elif name in ("padded_shared", "shared_linear"):
        bases = [list(b) for b in fields.get("offset", [])] or _identity(fields, inner)
    else:
        return None
    if bases is None:
        return None
    return SharedMapping(_with_buffers(bases, shape, rank), paddings(text))


def _fields(text: str) -> dict:
    fields: dict = {}
    for key, value in _FIELD.findall(text):
        if value.startswith("["):
            fields[key] = eval_list(value)
        elif value.isdigit():
            fields[key] = int(value)
        else:
            fields[key] = value == "true" if value in ("true", "false") else value
    return fields


def eval_list(text: str) -> list:
    """`[1, 0]` -> [1, 0]; `[[0, 1], [2, 0]]` -> [[0, 1], [2, 0]] (integers only)."""
    if text.startswith("[["):
        return [eval_list(inner) for inner in re.findall(r"\[[^\[\]]*\]", text[1:-1])]
    return [int(x) for x in re.findall(r"-?\d+", text)]


def _split(fields: dict) -> bool:
    """Whether the layout spreads over several CTAs (its bases then include a block dimension)."""
    counts = any(v != 1 for key in _SPLIT_COUNTS for v in _flat(fields.get(key) or []))
    return counts or any(_flat(fields.get(key) or []) for key in _SPLIT_BASES)


def _flat(values: list) -> list:
    return [x for v in values for x in (_flat(v) if isinstance(v, list) else [v])]


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _log2(n: int) -> int:
    return n.bit_length() - 1


def _unit(rank: int, dim: int, value: int) -> list[int]:
    basis = [0] * rank
    basis[dim] = value
    return basis


def _identity(fields: dict, shape: tuple[int, ...]) -> list[list[int]] | None:
    """Offsets walking the dimensions in `order`, the fastest first (a padded layout's short form)."""
    order, own = fields.get("order"), fields.get("shape")
    if not order or (own and tuple(own) != shape):
        return None  # laid over another shape than the allocation's: not modelled
    return [_unit(len(shape), d, 1 << i) for d in order for i in range(_log2(shape[d]))]


def _swizzled(fields: dict, shape: tuple[int, ...], rotating: bool) -> list[list[int]]:
    """Columns (order[0]) fastest; each row's columns XORed with vec * phase, the phase advancing every
    perPhase rows and wrapping at maxPhase (rotating: also XORed with the block of maxPhase phases)."""
    order, rank = fields["order"], len(shape)
    if rank == 1:
        return [[1 << i] for i in range(_log2(shape[0]))]
    vec, per, most = fields["vec"], fields["perPhase"], fields["maxPhase"]
    col, row = order[0], order[1]
    bases = [_unit(rank, col, 1 << i) for i in range(_log2(shape[col]))]
    for r in (1 << i for i in range(_log2(shape[row]))):
        phase = r // per % most
        if rotating:
            phase ^= r // most // per % most
        basis = _unit(rank, row, r)
        basis[col] = vec * phase % shape[col]
        bases.append(basis)
    return bases + [_unit(rank, d, 1 << i) for d in order[2:] for i in range(_log2(shape[d]))]


def _nvmma(fields: dict, shape: tuple[int, ...], release: tuple[int, ...]) -> list[list[int]] | None:
    """The TMA box (each dimension at most 256; the contiguous one exactly the swizzle's width) laid
    row-major in 8-row core matrices whose rows are swizzled, then boxes repeated over the shape.
    Unswizzled, the box is row-major; transposed, up to 3.7 too (the rule of 3.6's source), but dim 0
    fastest from the release that made swizzle 0 usable by TMA and MMA (3.9; 3.8 is taken as 3.7)."""
    swizzle, bits, transposed = fields["swizzlingByteWidth"], fields["elementBitWidth"], bool(fields.get("transposed"))
    if fields.get("fp4Padded"):
        return None
    rank = len(shape)
    box = [min(s, 256) for s in shape]
    contiguous = 0 if transposed else rank - 1
    if swizzle:
        if box[contiguous] < 8 * swizzle // bits:
            return None  # Triton: "Block shape is too small for the swizzle byte size"
        box[contiguous] = 8 * swizzle // bits
    if not swizzle:
        walk = list(reversed(range(rank)))
        if transposed and release >= (3, 9):
            walk = [0, *walk[:-1]]
        inner = [_unit(rank, d, 1 << i) for d in walk for i in range(_log2(box[d]))]
        return inner + _repeats(shape, box, reversed(range(rank)))
    tile = _swizzled_box(swizzle, bits, box, transposed)
    return None if tile is None else tile + _repeats(shape, box, range(rank))


def _swizzled_box(swizzle: int, bits: int, box: list[int], transposed: bool) -> list[list[int]] | None:
    """One TMA box: a (rows x columns) tile of core matrices, reshaped row-major to the box."""
    rows, columns = 1, box[-1]
    for size in box[:-1]:
        rows *= size
    if transposed:
        rows, columns = columns, rows
    width, vec, per, most = 8 * max(16, swizzle) // bits, 128 // bits, 128 // swizzle, swizzle // 16
    if rows < 8 or columns < width:
        return None  # Triton: "Illegal shared layout"
    flat = [(0, 1 << i) for i in range(_log2(width))]
    flat += [(r, vec * (r // per % most)) for r in (1, 2, 4)]
    flat += [(8 << i, 0) for i in range(_log2(rows // 8))] + [(0, width << i) for i in range(_log2(columns // width))]
    laid = box[1:] + box[:1] if transposed else box
    bases = []
    for r, c in flat:
        coords = _unravel(r * columns + c, laid)
        bases.append(coords[-1:] + coords[:-1] if transposed else coords)
    return bases


def _unravel(index: int, shape: list[int]) -> list[int]:
    coords = []
    for size in reversed(shape):
        coords.append(index % size)
        index //= size
    return coords[::-1]


def _repeats(shape: tuple[int, ...], box: list[int], dims) -> list[list[int]]:
    """Offsets past one box: whole boxes along each dimension, in the order Triton extends them."""
    return [_unit(len(shape), d, box[d] << i) for d in dims for i in range(_log2(shape[d] // box[d]))]


def _with_buffers(bases: list[list[int]], shape: tuple[int, ...], rank: int) -> list[list[int]]:
    """Bases over the whole allocation: the layout's within one buffer, then the buffers (the leading
    dimensions, the last fastest) one after another."""
    lead = len(shape) - rank
    whole = [[0] * lead + b for b in bases]
    for d in reversed(range(lead)):
        whole += [_unit(len(shape), d, 1 << i) for i in range(_log2(shape[d]))]
    return whole


def banks(mapping: SharedMapping, shape: tuple[int, ...], bits: int) -> dict[tuple[int, ...], int]:
    """The bank (of 32 four-byte banks) of each element: offset o holds the element that is the XOR of
    the bases of o's set bits, at address o plus the padding of every interval before it."""
    found: dict[tuple[int, ...], int] = {}
    for offset in range(1 << len(mapping.offsets)):
        element = [0] * len(shape)
        for bit, basis in enumerate(mapping.offsets):
            if offset >> bit & 1:
                element = [e ^ b for e, b in zip(element, basis, strict=True)]
        address = offset + sum(offset // interval * pad for interval, pad in mapping.paddings)
        found.setdefault(tuple(element), address * bits // 32 % 32)
    return found
