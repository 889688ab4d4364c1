"""What every program of a launch reads, writes and multiplies, from the kernel's TTIR evaluated for
all of its program ids at once (analysis/program_values.py holds what each op gives).

The kernel is walked once, in order, every value held per program: `tl.program_id` is each
program's own (programs numbered in launch order, axis 0 fastest), the arguments are the values the
launch gives (an integer not given is not known, and neither is what follows from it). A loop counts
its trip count, per program, times its body (its first iteration's values stand for the others,
but for its masks, whose share on the last trip is found by walking the body again: a row's last,
partly masked block);
a branch counts by the share of programs (or elements) that take it; a region that computes no
address (a reduction's combiner) counts for nothing. Each global access gives, per program, the
pointer argument it reads, the byte offset of its first element (what tells two programs' tiles
apart: a matmul's A tile is the same for every program of one row of C) and the bytes it moves in
all (elements in bounds x their width x executions); an address computed from loaded data is a
gather: each run of elements that share a loaded value (an embedding's row) costs at least one
32-byte sector, and its tiles are told apart by where the data was loaded from (programs that
load the same indices read the same rows: a mixture of experts' blocks of tokens, by the columns
of the weights they multiply). Each matrix product gives its
FLOPs. A launch of more than `limit` programs is evaluated for its first `limit` (the traffic of
the rest is taken to be like theirs), each access's bytes scaled to what a sample spread over the
rest moves (a grid larger than its data: the programs past its end move nothing).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field, replace

import numpy as np

from . import program_values, ttgir
from .program_values import Address, Share, Span, Value

LOOP_TRIPS = 16  # a loop whose trip count is not known (a while loop): assumed, and said
SECTOR = 32  # bytes: the least the memory moves for one scattered element
_FOR = re.compile(r"scf\.for\s+(%[\w#.]+)\s*=\s*(%[\w#.]+)\s+to\s+(%[\w#.]+)\s+step\s+(%[\w#.]+)")
_ITER_ARG = re.compile(r"(%[\w$.]+)\s*=\s*(%[\w$.]+(?:#\d+)?)")
# a descriptor's type: `!tt.tensordesc<tensor<128x64xf16...>>` (to Triton 3.8), `!tt.tensordesc<128x64xf16>` (3.9)
_ARGUMENT = re.compile(r"%([\w$.]+)\s*:\s*(!tt\.ptr<(\w+)>|!tt\.tensordesc<(?:tensor<)?([\dx]+)x(\w+)|i\d+)")
_POINTERS = re.compile(r"tensor<((?:\d+x)+)!tt\.ptr<(\w+)>|!tt\.ptr<(\w+)>")
_BLOCK = re.compile(r"tensordesc<(?:tensor<)?((?:\d+x)+)(\w+)")
_DOT = re.compile(r"(?:tensor|memdesc)<(\d+)x(\d+)x(\w+)[^*]*\*\s*!?\w*\.?(?:tensor|memdesc)<(\d+)x(\d+)x")
_LOADS = ("tt.load", "ttg.async_copy_global_to_local", "tt.descriptor_load", "tt.descriptor_gather")
_STORES = ("tt.store", "tt.descriptor_store", "tt.atomic_rmw", "tt.atomic_cas", "tt.descriptor_reduce")
_TMA_LOADS = ("ttng.async_tma_copy_global_to_local",)
# Matrix product rates against FP16's, by operand type: TF32 half, FP8 and INT8 twice (the data sheets).
_RATE = {"f16": 1.0, "bf16": 1.0, "f32": 0.5, "f8E4M3FN": 2.0, "f8E5M2": 2.0, "i8": 2.0}


@dataclass(frozen=True)
class Descriptor:
    """A tensor descriptor (TMA): the tensor it describes, named by its argument."""

    base: str


@dataclass(frozen=True)
class Access:
    """One global load or store of the kernel, per evaluated program."""

    line: int  # its TTIR line
    kind: str  # load or store (an atomic is both: counted as a store)
    base: str  # the pointer argument (or descriptor) it addresses
    first: np.ndarray  # the byte offset of its first element (a descriptor's: its coordinates)
    bytes: np.ndarray  # moved in all, per program
    known: bool  # its addresses follow from the launch's values, not from data
    elements: int = 1  # of its tile, each execution
    width: int = 4  # bytes an element
    runs: float = 1.0  # how many times program 0 executes it
    all_runs: float = 1.0  # how many times the evaluated programs execute it, together
    block: bool = False  # a tensor descriptor's (TMA): one instruction moves the whole tile
    dims: tuple[int, ...] = ()  # the pointer tensor's shape (a scalar: none)
    span: np.ndarray | None = None  # per program: bytes from its first element to its last, inclusive
    keyed: bool = False  # addresses from data, told apart by where the data was read (`first`: both)
    in_bounds: float = 1.0  # the share of its elements the mask lets through, over the evaluated programs
    table: float = 0.0  # addresses from data within known bounds (`x % 256`): the bytes they may touch
    atomic: str = ""  # an atomic's operation (`add`, `fadd`, `max`, `cas` ...); "" for a load or store
    run: int = 0  # addresses from data: the bytes each loaded index addresses together (an embedding's row)


@dataclass(frozen=True)
class Traffic:
    programs: int  # in the launch
    evaluated: int  # the first programs, the ones evaluated
    accesses: tuple[Access, ...]
    tensor_flops: float  # the launch's (the evaluated programs' taken for the rest), in FP16-rate FLOPs
    # (TF32 counts twice, FP8 half)
    flops: float  # the same, as they are
    work: np.ndarray  # per program: executions of its memory and matrix ops (how long it runs, relatively)
    notes: tuple[str, ...] = field(default=())


class _Walk:
    def __init__(self, grid: tuple[int, int, int], count: int, values: dict[str, int], ids: np.ndarray | None = None):
        self.grid, self.count, self.values = grid, count, values
        ids = np.arange(count, dtype=np.int64) if ids is None else ids.astype(np.int64)
        self.pids = (ids % grid[0], (ids // grid[0]) % grid[1], ids // (grid[0] * grid[1]))
        self.env: dict[str, Value | Descriptor] = {}
        self.accesses: list[Access] = []
        self.flops = [0.0, 0.0]  # at the FP16 rate, as they are
        self.work = np.zeros(count)
        self.notes: list[str] = []
        self.stack: list[tuple[np.ndarray, np.ndarray | None]] = []  # (multiplicity, an if's share)
        self.shares: dict[int, np.ndarray] = {}  # per access (its line): the share its mask lets through
        self.last_trip: dict[int, np.ndarray] = {}  # the same on its loop's last trip (_last_trip)
        self.trips: dict[int, np.ndarray] = {}  # per loop (its line): its trip count, per program
        self.axes_read: set[int] = set()  # the grid's axes the kernel reads (tl.program_id(axis))

    def scratch(self) -> _Walk:
        """A copy to walk a loop's body again on, that leaves this walk as it was."""
        other = _Walk.__new__(_Walk)
        other.__dict__.update(self.__dict__)
        other.env, other.stack = dict(self.env), list(self.stack)
        other.accesses, other.flops, other.notes = [], [0.0, 0.0], []
        other.shares, other.last_trip, other.trips = {}, {}, dict(self.trips)
        return other

    @property
    def times(self) -> np.ndarray:
        return self.stack[-1][0] if self.stack else np.ones(1)

    def per_program(self, value: np.ndarray | float) -> np.ndarray:
        return np.broadcast_to(np.asarray(value, dtype=float), (self.count,))


def evaluate(ttir: str, grid: tuple[int, int, int], values: dict[str, int], limit: int = 16384) -> Traffic:
    """The traffic of a launch of `grid` with the integer arguments `values` (module docstring)."""
    programs = grid[0] * grid[1] * grid[2]
    count = min(programs, limit)
    walk = _walked(ttir, _Walk(grid, count, values))
    accesses = walk.accesses
    if programs > count:  # the first programs, their bytes scaled to a sample spread over the rest
        rest = count + np.arange(count) * ((programs - count) // count)
        spread = _walked(ttir, _Walk(grid, count, values, rest))
        scaled = [_scaled(first, later, programs) for first, later in zip(accesses, spread.accesses, strict=True)]
        accesses = scaled
        said = "the rest taken alike, but for the bytes of a sample spread over them"
        walk.notes.append(f"the first {count:,} of {programs:,} programs evaluated, {said}")
    for axis in sorted(set(range(3)) - walk.axes_read):
        if grid[axis] > 1:  # a grid laid out otherwise than the kernel reads it (2-D for a 1-D kernel)
            walk.notes.append(
                f"the grid's axis {axis} has {grid[axis]:,} programs, and the kernel never reads "
                f"tl.program_id({axis}): they repeat the same work"
            )
    whole = programs / walk.count  # the FLOPs of the first programs, taken for the rest alike
    tensor_flops, flops = walk.flops[0] * whole, walk.flops[1] * whole
    return Traffic(programs, walk.count, tuple(accesses), tensor_flops, flops, walk.work, tuple(walk.notes))


def _walked(ttir: str, walk: _Walk) -> _Walk:
    _arguments(walk, ttir)
    module = ttgir.read(ttir)
    for index, op in enumerate(module.ops):
        if op.name == "scf.for":
            _last_trip(walk, module.ops, index)
        _step(walk, op)
    return walk


def _scaled(first: Access, later: Access, programs: int) -> Access:
    """An access of the first programs, its bytes scaled so that, taken for every program as the first
    ones' (the launch's figures do so), they add up to theirs and the rest's as `later` samples them
    (past the data's end, a grid's programs mask everything off: they move nothing)."""
    count = first.bytes.size
    moved = float(first.bytes.sum())
    total = moved + (programs - count) * float(later.bytes.sum()) / max(later.bytes.size, 1)
    taken = moved * programs / count
    if moved <= 0 or abs(total - taken) <= 1e-9 * taken:
        return first
    return replace(first, bytes=first.bytes * (total / taken))


def _arguments(walk: _Walk, ttir: str) -> None:
    """The kernel's arguments as values: pointers at offset 0 of themselves, integers the launch gives."""
    signature = next((line for line in ttir.splitlines() if "tt.func" in line), "")
    for name, kind, pointee, block, _ in _ARGUMENT.findall(signature):
        if pointee:
            walk.env[f"%{name}"] = Address(name, np.zeros(1, np.int64), np.zeros(1, np.int64), _width(pointee))
        elif block:
            walk.env[f"%{name}"] = Descriptor(name)
        elif name in walk.values and kind == "i1":  # a bool: the branches it takes (`if flag:`)
            walk.env[f"%{name}"] = Share(np.array([1.0 if walk.values[name] else 0.0]))
        elif name in walk.values:
            walk.env[f"%{name}"] = program_values.scalar(int(walk.values[name]))


def _width(element: str) -> int:
    """Bytes of an element type: f16 2, f8E4M3FN 1, i1 1, a pointer 8."""
    if element.startswith(("f8", "i8", "i1")) or element == "ptr":
        return 1 if element != "ptr" else 8
    digits = re.search(r"(\d+)$", element)
    return int(digits.group(1)) // 8 if digits else 4


def _step(walk: _Walk, op: ttgir.Op) -> None:
    if op.name == "}":
        _close(walk, op)
    elif op.name == "scf.for":
        _loop(walk, op)
    elif op.name == "scf.if":
        share = _share(walk.env.get(op.operands[0]) if op.operands else None, walk)
        walk.stack.append((walk.times * share, share))
    elif op.text.endswith("{"):  # a while loop counts LOOP_TRIPS times; a reduction's combiner nothing
        looping = op.name == "scf.while"
        if looping:
            walk.notes.append(f"a while loop (TTIR line {op.number}) assumed to run {LOOP_TRIPS} times")
        walk.stack.append((walk.times * (LOOP_TRIPS if looping else 0), None))
    elif op.name in _LOADS or op.name in _STORES or op.name in _TMA_LOADS:
        _access(walk, op)
    elif op.name in ttgir.DOT_OPS:
        _dot(walk, op)
    elif op.name == "tt.get_program_id":
        axis = ttgir.grid_axis(op)
        walk.env[op.results[0]] = Span(walk.pids[axis], walk.pids[axis])
        walk.axes_read.add(axis)
    elif op.name == "tt.get_num_programs":
        axis = ttgir.grid_axis(op)
        walk.env[op.results[0]] = program_values.scalar(walk.grid[axis])
    elif op.name == "tt.make_tensor_descriptor" and op.results:
        base = walk.env.get(op.operands[0]) if op.operands else None
        walk.env[op.results[0]] = Descriptor(base.base if isinstance(base, Address) else op.results[0])
    elif op.results:
        result = program_values.apply(op.name, op.text, [_value(walk, o) for o in op.operands])
        for name in op.results:
            walk.env[name] = result


def _value(walk: _Walk, name: str) -> Value:
    value = walk.env.get(name)
    return None if isinstance(value, Descriptor) else value


def _share(condition: Value | Descriptor, walk: _Walk) -> np.ndarray:
    """How much of a branch runs: its condition's share of true, or half where it is not known."""
    if isinstance(condition, Share):
        return walk.per_program(condition.true)
    walk.notes.append("a branch on a value not known counted as taken half the time")
    return walk.per_program(0.5)


def _close(walk: _Walk, op: ttgir.Op) -> None:
    """A region ends; `} else {` opens the other side of an if, run by the rest."""
    if not walk.stack:
        return
    times, share = walk.stack.pop()
    if op.text.endswith("{"):  # an if's other side; a while loop's body after its condition
        walk.stack.append((walk.times * (1 - share) if share is not None else times, None))


def _loop(walk: _Walk, op: ttgir.Op) -> None:
    """A loop: its body counts its trip count (per program) times; its first iteration's values."""
    found = _FOR.search(op.text)
    if found is None:
        walk.stack.append((walk.times * LOOP_TRIPS, None))
        return
    bounds = _bounds(walk, found)
    if bounds is not None:
        induction, first, _, trips = bounds
        walk.env[induction] = Span(first, first)
        walk.trips[op.number] = trips
    else:
        walk.notes.append(f"a loop (TTIR line {op.number}) with bounds not known assumed to run {LOOP_TRIPS} times")
        trips = np.array([LOOP_TRIPS])
        low = walk.env.get(found.group(2))
        if isinstance(low, Span):  # bounds read from memory: its first value, told apart by where they were read
            walk.env[found.group(1)] = low
    if "iter_args(" in op.text:
        for carried, initial in _ITER_ARG.findall(op.text.split("iter_args(", 1)[1]):
            walk.env[carried] = walk.env.get(initial)
    walk.stack.append((walk.times * trips, None))


def _bounds(walk: _Walk, found: re.Match) -> tuple[str, np.ndarray, np.ndarray, np.ndarray] | None:
    """A loop's (`_FOR`'s match of it) induction variable, its first value, its step and its trip count,
    per program; None where the arguments do not give its bounds."""
    bounds = [walk.env.get(name) for name in found.groups()[1:]]
    spans = [b for b in bounds if isinstance(b, Span) and not b.data]
    if len(spans) != 3:
        return None
    low, high, stride = spans
    trips = np.maximum(-np.floor_divide(-(high.lo - low.lo), np.maximum(stride.lo, 1)), 0)
    return found.group(1), low.lo, stride.lo, trips


def _last_trip(walk: _Walk, ops: tuple[ttgir.Op, ...], index: int) -> None:
    """The masks of a loop's accesses on its last trip (the first trip's values stand for the others,
    but a row's tail masks its last block: 50,000 columns in blocks of 16,384 read 4 blocks, the
    last 5% in bounds): the loop's body walked again, on a copy, with the induction variable's last
    value. Their shares are averaged over the trips (_access)."""
    found = _FOR.search(ops[index].text)
    bounds = _bounds(walk, found) if found else None
    if bounds is None or not np.any(bounds[3] > 1):
        return
    induction, first, step, trips = bounds
    scratch = walk.scratch()
    _step(scratch, ops[index])
    last = first + np.maximum(trips - 1, 0) * step
    scratch.env[induction] = Span(last, last)
    for op in ops[index + 1 : ttgir.region_end(ops, index)]:
        _step(scratch, op)
    walk.last_trip.update(scratch.shares)


def _access(walk: _Walk, op: ttgir.Op) -> None:
    """A global load or store: its pointer argument, first byte and bytes, per program."""
    kind = "load" if op.name in _LOADS or op.name in _TMA_LOADS else "store"
    target = walk.env.get(op.operands[0]) if op.operands else None
    times = walk.times
    walk.work = walk.work + walk.per_program(times)
    if isinstance(target, Descriptor):
        _descriptor_access(walk, op, target, kind, times)
        return
    dims, element = _pointer_shape(op.text)
    elements = int(np.prod(dims))
    mask_at = {"tt.load": 1, "tt.store": 2, "ttg.async_copy_global_to_local": 2, "tt.atomic_rmw": 2}.get(op.name)
    mask = walk.env.get(op.operands[mask_at]) if mask_at is not None and len(op.operands) > mask_at else None
    share = mask.true if isinstance(mask, Share) else np.ones(1)
    walk.shares[op.number] = share
    if op.number in walk.last_trip and op.loop in walk.trips:  # the first trip's mask, and the last's
        trips = walk.trips[op.loop]
        share = (share * np.maximum(trips - 1, 0) + walk.last_trip[op.number]) / np.maximum(trips, 1)
    known = isinstance(target, Address) and not target.data
    keyed = isinstance(target, Address) and bool(target.data) and target.origin is not None
    width = _width(element)
    run = _run(target, elements, width)
    per_element = width * max(SECTOR / run, 1.0) if run else width
    first = _first(walk, op, target, known, keyed)
    base = target.base if isinstance(target, Address) else "?"
    # a tile whose rows repeat (a packed weight's `offs_k // 8`) moves each different address once; a
    # tile wider than its rows (masked) has rows overlap: no more than its elements in bounds either
    used = elements * share
    used = np.minimum(used, program_values.count(target)) if isinstance(target, Address) and known else used
    moved = walk.per_program(used * per_element * times)
    start = walk.per_program(first).astype(np.int64)
    runs, all_runs = float(walk.per_program(times)[0]), float(walk.per_program(times).sum())
    span = (
        walk.per_program(target.hi - target.lo + width).astype(np.int64)
        if isinstance(target, Address) and known
        else None
    )
    in_bounds = float(walk.per_program(share).mean())
    table = _table(walk, target, width) if isinstance(target, Address) and target.data and target.bounded else 0.0
    found = Access(
        op.number, kind, base, start, moved, known, elements, width, runs, all_runs, False, dims, span, keyed,
        in_bounds, table, _atomic(op), run,
    )  # fmt: skip
    walk.accesses.append(found)
    if op.name == "tt.load" and op.results:
        is_int = element.startswith("i") and element != "i1"
        walk.env[op.results[0]] = program_values.loaded(elements, _read_at(target)) if is_int else None


def _table(walk: _Walk, target: Address, width: int) -> float:
    """The bytes an access whose addresses are bounded data may touch over the launch: each program's
    range (a histogram's bins, a lookup table; one per row where the rows' tables differ), together."""
    lo, hi = walk.per_program(target.lo), walk.per_program(target.hi)
    each = float((hi - lo).max()) + width
    return min(float(hi.max() - lo.min()) + width, each * np.unique(lo).size)


def _atomic(op: ttgir.Op) -> str:
    """`tt.atomic_rmw fadd, relaxed, ...`: fadd; `tt.atomic_cas`: cas; not an atomic: ""."""
    if op.name == "tt.atomic_cas":
        return "cas"
    if op.name == "tt.atomic_rmw":
        return op.text.split("tt.atomic_rmw", 1)[1].split(",", 1)[0].strip()
    return ""


def _first(walk: _Walk, op: ttgir.Op, target: Value | Descriptor, known: bool, keyed: bool) -> np.ndarray:
    """What tells an access's tiles apart, per program: its first byte; for an address from data, that
    of its known part and where the data was read (programs that loaded the same indices read the
    same bytes); else every program's is its own."""
    if isinstance(target, Address) and known:
        return target.lo
    mixed = program_values.mix(target.lo, target.origin) if isinstance(target, Address) and keyed else None
    return mixed if mixed is not None else np.arange(walk.count) + (op.number << 40)


def _read_at(target: Value | Descriptor) -> np.ndarray | None:
    """Where a load's values come from, per program: its addresses (and the data they came from)."""
    if not isinstance(target, Address) or (target.data and target.origin is None):
        return None  # a load through data of no known origin: not told apart
    where = program_values.mix(
        program_values.mix(target.lo, target.hi), np.array([zlib.crc32(target.base.encode())], np.int64)
    )
    return program_values.mix(where, target.origin)


def _run(target: Value | Descriptor, elements: int, width: int) -> int:
    """For a gather whose addresses are data, the bytes of each contiguous run (the elements that share
    one loaded value: a row), each of which moves at least a 32-byte sector; 0 for any other access."""
    if not isinstance(target, Address) or not target.data:
        return 0
    return max(elements // target.data, 1) * width


def _descriptor_access(walk: _Walk, op: ttgir.Op, descriptor: Descriptor, kind: str, times: np.ndarray) -> None:
    """A TMA load or store of a block at coordinates: the block's bytes; its coordinates tell it apart."""
    block = _BLOCK.search(op.text)
    dims = [int(d) for d in block.group(1).rstrip("x").split("x")] if block else [1]
    width = _width(block.group(2)) if block else 2
    coordinates = [walk.env.get(name) for name in op.operands[1 : 1 + len(dims)]]
    first = np.zeros(1, np.int64)
    known = all(isinstance(c, Span) and not c.data for c in coordinates)
    for coordinate in coordinates:
        first = first * (1 << 24) + (coordinate.lo if isinstance(coordinate, Span) else 0)
    if not known:
        first = np.arange(walk.count) + (op.number << 40)
    elements = int(np.prod(dims))
    moved = walk.per_program(elements * width * times)
    start = walk.per_program(first).astype(np.int64)
    runs, all_runs = float(walk.per_program(times)[0]), float(walk.per_program(times).sum())
    found = Access(op.number, kind, descriptor.base, start, moved, known, elements, width, runs, all_runs, True)
    walk.accesses.append(found)


def _pointer_shape(text: str) -> tuple[tuple[int, ...], str]:
    """(shape, element type) of the pointer tensor an access is typed with; a scalar pointer: ()."""
    found = _POINTERS.search(text)
    if found is None:
        return (), "f32"
    dims, tensor_element, scalar_element = found.groups()
    if dims is None:
        return (), scalar_element
    return tuple(int(d) for d in dims.rstrip("x").split("x")), tensor_element


def _dot(walk: _Walk, op: ttgir.Op) -> None:
    """A matrix product: 2 x M x N x K FLOPs each execution; an FP32 one in IEEE precision runs on
    the FMA units (the issue limit counts it), not the tensor cores."""
    shapes = _DOT.search(op.text)
    times = walk.per_program(walk.times)
    walk.work = walk.work + times
    if shapes is None:
        return
    m, k, element, _, n = shapes.groups()
    flops = 2.0 * int(m) * int(n) * int(k) * float(times.sum())
    ieee = element == "f32" and "inputPrecision = ieee" in op.text
    walk.flops[1] += flops
    if not ieee:
        walk.flops[0] += flops / _RATE.get(element, 1.0)
