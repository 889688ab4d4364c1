"""What the DRAM moves for an access whose pieces are narrow: the sectors and lines its bytes lie in.

Measured on the H200 (benchmarks/dram_granule.py; docs/data/h200-launch/dram-granule.txt): a bf16
tensor read, written or copied in tiles whose rows are 8 to 256 bytes wide, the programs in two
orders (the next program the rows below, or the bytes beside).
  - A 32-byte sector is the least a read costs: row segments of 8 bytes took 3.7-3.8x the time of
    whole rows, 16 bytes 2.2x, in either order: the neighbours' reads of the same sector do not
    save it.
  - A warp's store that writes part of a sector costs the sector read and written again (the L2
    merges the bytes before the DRAM takes them), even where a neighbour writes the rest at once:
    16-byte segments took 6.9-9.6x, 8-byte 9-15x; WRITE_PART_READS. A warp's store covers a run
    of the row (the layout's threads along it times their pieces): rows that start off a sector's
    edge (2,000 bytes long) have a partly written sector at every run's ends. A thread's piece
    written in several narrower instructions is whole by the warp's next few: a vector add at
    2^26+3 fp32 elements (32-bit stores) took 198.9 us against 189.8 at 2^26 (128-bit), 1.05x.
  - The DRAM works in lines of what is asked together: where the programs of a wave (those the
    GPU runs at once) cover less than LINE bytes of each row between them (tiles 64 bytes wide
    whose neighbours come a wave later), reads took 1.8x; 128 bytes 1.09x. Counted for accesses a
    program makes once: in a loop a program's own next iteration reads on along the row. So does a
    gather's or a scatter's run shorter than a line, at addresses from data (a lookup's 4-byte
    elements: a table past the L2 took 785 us for 1.07 GB of sectors, 2.9x their DRAM time).
A row segment's sectors are counted where its bytes fall: rows of 2,000 bytes put a 32-byte segment
across two sectors in every other row. An access's factor is the largest of these over the bytes it
uses; dram_reuse.py scales its DRAM bytes by it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.model import Compilation
from ..core.stages import Stage
from . import linemap, sectors, ttgir
from .program_traffic import Access, Traffic

SECTOR = sectors.SECTOR
LINE = 128
# A partly written sector costs this many sectors more (read, merged, written): 16-byte segments'
# writes took 6.9-9.6x the whole rows' (2.45-3.8 more a sector), 8-byte 9-15x (1.25-2.7 more).
WRITE_PART_READS = 2.5
SAMPLED = 32  # programs, and rows of each, whose segments are counted
COUNTED = 1.05  # a smaller factor (a long run's partly used sectors at its ends) is not counted


@dataclass(frozen=True)
class Granule:
    """An access's DRAM bytes over the bytes it uses, and why, in words."""

    factor: float
    why: str  # `16-byte pieces, moved in whole 32-byte sectors`


def factors(c: Compilation, traffic: Traffic, slots: int) -> dict[int, Granule]:
    """{index in traffic.accesses: its DRAM bytes over its bytes, and why}, where COUNTED or more."""
    shapes = _shapes(c)
    found = {}
    for index, access in enumerate(traffic.accesses):
        if 0 < access.run < LINE and not access.table:  # a table's misses: dram_reuse.py
            found[index] = scattered(access)
        if not access.known or access.block or access.span is None or not access.dims:
            continue
        kind = "load" if access.kind == "load" else "store"
        shape = shapes.get((linemap.kernel_line(c, Stage.TTIR, access.line), kind))
        if shape is None and len(access.dims) == 1:
            shape = _Shape(0, 0)  # a flat tile: its one dimension
        if shape is None:  # a tile whose contiguous dimension the TTGIR does not say: not guessed
            continue
        if element_stride(access):  # a wave's neighbours fill its elements' sectors (STRIDED_MEASURED)
            continue
        granule = _granule(access, access.dims[shape.axis] * access.width, shape.chunk, slots)
        if granule.factor >= COUNTED:
            found[index] = granule
    return found


@dataclass(frozen=True)
class _Shape:
    axis: int  # the tile's contiguous dimension
    chunk: int  # bytes one instruction writes in one run along it (0: not known, the whole segment)


def element_stride(access: Access) -> int:
    """Bytes from one element of a one-dimensional tile to the next where they lie further apart than an
    element (`o_t * H`: a column of a row-major matrix, each element a piece of its own); 0 where they
    lie side by side, or the tile has more dimensions (its rows' stride: `_granule`)."""
    if not access.known or access.span is None or len(access.dims) != 1 or access.elements < 2:
        return 0
    stride = (int(access.span[0]) - access.width) // (access.elements - 1)
    return stride if stride > access.width else 0


def scattered(access: Access) -> Granule:
    """A gather's or scatter's factor where its runs at data addresses are shorter than a line (1 where
    they are not)."""
    said = f"{access.run}-byte pieces at scattered addresses, moved in whole {LINE}-byte lines"
    return Granule(max(1.0, LINE / max(access.run, SECTOR)), said)


def _granule(access: Access, segment: int, chunk: int, slots: int) -> Granule:
    """One access's factor (module docstring): its rows' segments of `segment` bytes, written
    `chunk` bytes an instruction."""
    assert access.span is not None
    rows = access.elements * access.width // max(segment, 1)
    span = int(access.span[0])
    if span < segment:  # elements share addresses (a broadcast): not pieces of rows
        return Granule(1.0, "")
    stride = (span - segment) // (rows - 1) if rows > 1 else 0  # from a row's start to the next
    if stride <= 0:  # one row, or rows on the same bytes (a broadcast along them): one run
        rows, segment, stride = 1, span, span
    segment = min(segment, stride)  # a tile wider than the rows (masked) holds a whole row each
    starts = access.first[:SAMPLED, None] + np.arange(min(rows, SAMPLED))[None, :] * stride
    touched = _touched(starts, segment, SECTOR)
    said = f"{segment:,}-byte pieces, moved in whole {SECTOR}-byte sectors"
    if access.kind != "load":
        parts = _partly_written(starts, segment, min(chunk or segment, segment), touched)
        touched = touched + WRITE_PART_READS * parts
        said += " (a partly written sector is read, merged and written back)" if parts.any() else ""
    found = Granule(float(touched.mean()) * SECTOR / segment, said)
    if rows > 1 and access.runs <= 1 and stride > segment:
        together = np.unique(access.first[: max(slots, 1)] % stride).size  # column tiles a wave covers
        covered = segment * together
        lines = _touched(starts, covered, LINE) if covered < stride else None
        if lines is not None and float(lines.mean()) * LINE / covered > found.factor:
            said = f"a wave's blocks cover {covered:,} bytes of each row, moved in whole {LINE}-byte lines"
            found = Granule(float(lines.mean()) * LINE / covered, said)
    return found


def _touched(starts: np.ndarray, length: int, size: int) -> np.ndarray:
    """For runs of `length` bytes at `starts`: the pieces of `size` bytes each touches."""
    return -(-(starts % size + length) // size)


def _partly_written(starts: np.ndarray, segment: int, chunk: int, touched: np.ndarray) -> np.ndarray:
    """For segments at `starts` written `chunk` bytes an instruction: the sectors an instruction writes
    only part of, each segment's (a chunk's ends that fall inside a sector; every sector where the
    chunks are narrower than one)."""
    if chunk < SECTOR:
        return touched
    ends = starts[..., None] + np.arange(0, segment + chunk, chunk).clip(max=segment)
    inside = (np.diff(ends, prepend=-1) != 0) & (ends % SECTOR != 0)  # a repeated end (clipped) once
    return np.count_nonzero(inside, axis=-1)


def _shapes(c: Compilation) -> dict[tuple[int | None, str], _Shape]:
    """{(kernel line, load or store): the _Shape of its global accesses}, from the TTGIR layout's run
    along the contiguous dimension (sectors.contiguous_run: how much of it a warp covers)."""
    module = ttgir.read(c.stages.get(Stage.TTGIR, ""))
    found: dict[tuple[int | None, str], _Shape] = {}
    for op in module.ops:
        line = linemap.kernel_line(c, Stage.TTGIR, op.number) if op.name in sectors.ACCESSES else None
        run = sectors.contiguous_run(module, op) if line is not None else None
        if line is None or run is None:
            continue
        chunk = run.piece * run.threads  # the warp's run: its instructions write a thread's piece in turn
        kind = "store" if op.name == "tt.store" else "load"
        found.setdefault((line, kind), _Shape(run.axis, chunk))
    return found


# tests/kernels/launch/strided.py on the H200 (2026-12-01): 2^24 fp32 elements as columns of H, each of
# 262,144 programs 64 rows of one, the H programs of a row block side by side. Copy, read, write: 162 us
# at H = 1 to 8 (starting the blocks bounds it), 195/164/171 at H = 16, 346/187/238 at H = 32: the
# DRAM moves about the bytes used, not a sector a 4-byte element, while the L1's and L2's sectors
# (launch_time.py, dram_reuse.py) are one an element; at 128 bytes apart (H = 32) lines are moved too.
STRIDED_MEASURED = {1: (162, 162, 162), 16: (195, 164, 171), 32: (346, 187, 238)}

NOTED = 0.01  # an access whose bytes, moved as the factor says, are less of the launch's is not said


def notes(c: Compilation, traffic: Traffic, granules: dict[int, Granule]) -> tuple[str, ...]:
    """`the DRAM moves 2x the bytes line 14 reads: 16-byte pieces, moved in whole 32-byte sectors`,
    for the accesses whose extra bytes weigh in the launch (a program's one scattered element does not)."""
    found = []
    total = sum(float(np.sum(a.bytes)) for a in traffic.accesses) or 1.0
    for index, granule in sorted(granules.items()):
        access = traffic.accesses[index]
        if float(np.sum(access.bytes)) * granule.factor < NOTED * total:
            continue
        line = linemap.kernel_line(c, Stage.TTIR, access.line)
        where = f"line {line}" if line is not None else "an access"
        verb = "reads" if access.kind == "load" else "writes"
        found.append(f"the DRAM moves {granule.factor:.3g}x the bytes {where} {verb}: {granule.why}")
    return tuple(found)
