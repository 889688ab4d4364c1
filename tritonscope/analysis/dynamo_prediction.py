"""Which torch.compile recompiles the declared sizes will make, from the warmup's frame compiles: each
entry's size guards (parsers/dynamo_guards.py), the inputs' dims as functions of the sizes, and
dynamo's own policy replayed: a call no entry's guards accept compiles a new entry, in which a dim
that has taken two values is dynamic (`2 <= size`, as automatic dynamic shapes makes it) unless it is
0 or 1 (those stay static, the "0/1 specialization"), and every other dim is static.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..parsers.dynamo_guards import Bound, Guards
from .size_expressions import Expr, evaluate

RECOMPILE_LIMIT = 8  # torch._dynamo.config.recompile_limit: past it the function runs eagerly


@dataclass(frozen=True)
class FrameModel:
    function: str
    file: str | None
    line: int | None
    dims: dict[str, tuple[Expr | None, ...]]  # each tensor input's dims over the sizes (None: held)
    held: dict[str, tuple[int, ...]]  # each input's shape at the last warmup compile
    entries: tuple[Guards, ...]
    seen: dict[tuple[str, int], frozenset[int]]  # the values each dim had at the warmup's compiles
    automatic: bool = True  # a dim that varied becomes dynamic (False: dynamic=False, every entry static)
    marked: frozenset[tuple[str, int]] = frozenset()  # dims a warmup entry had dynamic (mark_dynamic): stay so
    limit: int = RECOMPILE_LIMIT  # the program's recompile_limit (a capture's records say it)


@dataclass(frozen=True)
class PredictedEntry:
    function: str
    sizes: dict[str, tuple[int | None, ...]]
    example: dict[str, int]
    shapes: dict[str, tuple[int, ...]]
    seen: bool = False  # compiled after the mark in the capture itself: certain to come

    @property
    def text(self) -> str:
        said = "; ".join(
            f"{n}: [{', '.join('dynamic' if d is None else str(d) for d in s)}]" for n, s in self.sizes.items()
        )
        said = said or "no tensor input recorded"  # a function taking none (or a capture from before **kwargs)
        return f"compiled after the mark in this capture: {said}" if self.seen else said


def _representatives(lo: int, hi: int, breaks: set[int]) -> list[int]:
    """The values of lo..hi where a size guard can change its answer, and one between each two."""
    near = {lo, hi} | {b + d for b in breaks for d in (-1, 0, 1)} | {1, 2, 3}
    points = sorted(p for p in near if lo <= p <= hi)
    between = [(a + b) // 2 for a, b in itertools.pairwise(points) if b - a > 1]
    return sorted(set(points) | set(between))


def _breaks(frame: FrameModel) -> set[int]:
    found = {v for values in frame.seen.values() for v in values}
    for entry in frame.entries:
        found |= {d for dims in entry.sizes.values() for d in dims if d is not None}
        found |= {b.limit for b in entry.bounds if b.limit < 2**31 - 1}
    return found


def shapes_at(frame: FrameModel, point: dict[str, int]) -> dict[str, tuple[int, ...]]:
    env = {n: np.array([v]) for n, v in point.items()}
    shapes = {}
    for name, dims in frame.dims.items():
        held = frame.held.get(name, ())
        shapes[name] = tuple(
            int(np.asarray(evaluate(d, env)).ravel()[0]) if d is not None else held[i] for i, d in enumerate(dims)
        )
    return shapes


def accepts(entry: Guards, shapes: dict[str, tuple[int, ...]]) -> bool:
    for name, sizes in entry.sizes.items():
        shape = shapes.get(name)
        if shape is None:
            continue
        if len(shape) != len(sizes) or any(s is not None and s != v for s, v in zip(sizes, shape, strict=True)):
            return False
    return all(b.holds(shapes) is not False for b in entry.bounds)


def new_entry(frame: FrameModel, shapes: dict[str, tuple[int, ...]], seen: dict) -> Guards:
    """The entry dynamo compiles for SHAPES: a dim seen with two values is dynamic unless 0 or 1 (and
    unless the warmup showed dynamo keeping such dims static: dynamic=False)."""
    sizes = {}
    for name, shape in shapes.items():
        dims = []
        for i, value in enumerate(shape):
            varied = frame.automatic and len(seen.get((name, i), frozenset()) | {value}) > 1
            dims.append(None if (varied or (name, i) in frame.marked) and value >= 2 else value)
        sizes[name] = tuple(dims)
    return Guards(sizes, dynamic_bounds(sizes))


def dynamic_bounds(sizes: dict[str, tuple[int | None, ...]]) -> tuple[Bound, ...]:
    """The guard dynamo puts on each dynamic dim (None) of an entry it makes: `2 <= size`."""
    dynamic = [(name, i) for name, dims in sizes.items() for i, d in enumerate(dims) if d is None]
    return tuple(Bound(1, (dim,), "<=", 2, lower=True) for dim in dynamic)


def predict_frame(frame: FrameModel, ranges: dict[str, tuple[int, int]]) -> list[PredictedEntry]:
    """The entries the sizes' calls would compile, in ascending order of the sizes (dynamo keeps each)."""
    used = sorted({s for dims in frame.dims.values() for d in dims if d is not None for s in d.sizes})
    if not used:
        return []
    breaks = _breaks(frame)
    axes = [_representatives(*ranges[s], breaks) for s in used]
    entries, seen, found = list(frame.entries), dict(frame.seen), []
    for values in itertools.product(*axes):
        point = dict(zip(used, values, strict=True))
        shapes = shapes_at(frame, point)
        if any(accepts(e, shapes) for e in entries):
            continue
        if len(entries) >= frame.limit:  # dynamo stops compiling the function: it runs eagerly
            break
        entry = new_entry(frame, shapes, seen)
        for name, shape in shapes.items():
            for i, v in enumerate(shape):
                seen[(name, i)] = seen.get((name, i), frozenset()) | {v}
        entries.append(entry)
        found.append(PredictedEntry(frame.function, entry.sizes, point, shapes))
    return found


def automatic_dynamic(entries: list[tuple[dict[str, tuple[int, ...]], Guards]]) -> bool:
    """Whether dynamo made a dim dynamic once it varied, from the warmup's entries, each (its inputs'
    shapes, its guards): False where a later entry kept static a dim that had changed (dynamic=False, or
    automatic dynamic shapes off); True where none says so."""
    seen: dict[tuple[str, int], set[int]] = {}
    for shapes, guards_of in entries:
        for name, shape in shapes.items():
            sizes = guards_of.sizes.get(name)
            for i, value in enumerate(shape):
                before = seen.setdefault((name, i), set())
                changed = bool(before) and value not in before and value >= 2
                if changed and sizes is not None and i < len(sizes) and sizes[i] is not None:
                    return False
                before.add(value)
    return True
