"""What the DRAM moves for an access whose pieces are narrow: the sectors and lines its bytes lie in.

Measured on the H200 (benchmarks/dram_granule.py; docs/data/h200-launch/dram-granule.txt): a bf16
tensor read, written or copied in tiles whose rows are 8 to 256 bytes wide, the programs in two
orders (the next program the rows below, or the bytes beside).
  - A 32-byte sector is the least a read costs: row segments of 8 bytes took 3.7-3.8x the time of
    whole rows, 16 bytes 2.2x, in either order: the neighbours' reads of the same sector do not
    save it.
  - Writing part of a sector costs the sector read and written again (the L2 merges the bytes
    before the DRAM takes them): 16-byte segments 6.9-9.6x, 8-byte 9-15x; WRITE_PART_READS.
  - The DRAM works in lines of what is asked together: where the programs of a wave (those the
    GPU runs at once) cover less than LINE bytes of each row between them (tiles 64 bytes wide
    whose neighbours come a wave later), reads took 1.8x; 128 bytes 1.09x. Counted for accesses a
    program makes once: in a loop a program's own next iteration reads on along the row.
A row segment's sectors are counted where its bytes fall: rows of 2,000 bytes put a 32-byte segment
across two sectors in every other row. An access's factor is the largest of these over the bytes it
uses; dram_reuse.py scales its DRAM bytes by it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.model import Compilation
from ..core.stages import Stage
from . import ttgir
from .layouts import tensor_type
from .program_traffic import Access, Traffic

_ACCESSES = ("tt.load", "tt.store", "ttg.async_copy_global_to_local")
SECTOR = 32
LINE = 128
WRITE_PART_READS = 2.0  # a partly written sector costs this many sectors more (read, merged, written)
SAMPLED = 64  # programs and rows whose segments' sectors are counted
COUNTED = 1.05  # a smaller factor (a long run's partly used sectors at its ends) is not counted


@dataclass(frozen=True)
class Granule:
    """An access's DRAM bytes over the bytes it uses, and why, in words."""

    factor: float
    why: str  # `16-byte pieces of its rows in 32-byte sectors`


def factors(c: Compilation, traffic: Traffic, slots: int) -> dict[int, Granule]:
    """{index in traffic.accesses: its DRAM bytes over its bytes, and why}, where COUNTED or more."""
    fastest = _fastest_dimensions(c)
    found = {}
    for index, access in enumerate(traffic.accesses):
        if not access.known or access.block or access.span is None or not access.dims:
            continue
        axis = fastest.get(access.line, 0 if len(access.dims) == 1 else None)
        if axis is None:  # a tile whose contiguous dimension the TTGIR does not say: not guessed
            continue
        granule = _granule(access, access.dims[axis] * access.width, slots)
        if granule.factor >= COUNTED:
            found[index] = granule
    return found


def _granule(access: Access, segment: int, slots: int) -> Granule:
    """One access's factor (module docstring): its rows' segments of `segment` bytes."""
    assert access.span is not None
    rows = access.elements * access.width // max(segment, 1)
    span, used = int(access.span[0]), access.elements * access.width
    if span < used:  # elements share addresses (a broadcast, rows that overlap): no narrow pieces
        return Granule(1.0, "")
    if rows <= 1 or span == used:  # one segment, or rows that touch: one run of `span` bytes
        rows, segment = 1, span
        stride = span
    else:
        stride = (span - segment) // (rows - 1)  # bytes from one row's start to the next
    starts = access.first[:SAMPLED, None] + np.arange(min(rows, SAMPLED))[None, :] * stride
    touched, parts = _pieces(starts, segment, SECTOR)
    if access.kind != "load":
        touched = touched + WRITE_PART_READS * parts
    partly = " (a sector partly written is read, merged and written)" if access.kind != "load" and parts.any() else ""
    found = Granule(
        float(touched.mean()) * SECTOR / segment, f"{segment:,}-byte pieces in {SECTOR}-byte sectors{partly}"
    )
    if rows > 1 and access.runs <= 1 and stride > segment:
        together = np.unique(access.first[: max(slots, 1)] % stride).size  # column tiles a wave covers
        covered = segment * together
        lines = _pieces(starts, covered, LINE)[0] if covered < stride else None
        if lines is not None and float(lines.mean()) * LINE / covered > found.factor:
            said = f"the blocks of a wave cover {covered:,} bytes of each row: {LINE}-byte lines"
            found = Granule(float(lines.mean()) * LINE / covered, said)
    return found


def _pieces(starts: np.ndarray, length: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For runs of `length` bytes at `starts`: the pieces of `size` bytes each touches, and how many of
    those it covers only in part (0, 1 or 2)."""
    offset = starts % size
    touched = -(-(offset + length) // size)
    parts = (offset != 0).astype(int) + ((offset + length) % size != 0)
    return touched, np.minimum(parts, touched)


def _fastest_dimensions(c: Compilation) -> dict[int, int]:
    """{TTIR line of a global access: its tensor's contiguous dimension}, from the TTGIR layout's
    order (Triton puts first the dimension its analysis found contiguous), by the kernel line."""
    module = ttgir.read(c.stages.get(Stage.TTGIR, ""))
    ttgir_lines = c.line_map.get(Stage.TTGIR, {})
    by_line: dict[int, int] = {}
    for op in module.ops:
        if op.name not in _ACCESSES:
            continue
        typed = tensor_type(op.text.split("->")[0])
        layout = module.layout(typed[1]) if typed else None
        order = layout.fields.get("order") if layout is not None else None
        lines = [n for f, n in ttgir_lines.get(op.number, ()) if f == c.kernel.file]
        if order and lines:
            by_line.setdefault(lines[0], int(order[0]))
    ttir_lines = c.line_map.get(Stage.TTIR, {})
    found = {}
    for ttir_line, places in ttir_lines.items():
        kernel_lines = [n for f, n in places if f == c.kernel.file]
        if kernel_lines and kernel_lines[0] in by_line:
            found[ttir_line] = by_line[kernel_lines[0]]
    return found


def notes(c: Compilation, traffic: Traffic, granules: dict[int, Granule]) -> tuple[str, ...]:
    """`the DRAM moves 2x the bytes line 14 reads: 16-byte pieces in 32-byte sectors`."""
    ttir_lines = c.line_map.get(Stage.TTIR, {})
    found = []
    for index, granule in sorted(granules.items()):
        access = traffic.accesses[index]
        lines = [n for f, n in ttir_lines.get(access.line, ()) if f == c.kernel.file]
        where = f"line {lines[0]}" if lines else "an access"
        verb = "reads" if access.kind == "load" else "writes"
        found.append(f"the DRAM moves {granule.factor:.3g}x the bytes {where} {verb}: {granule.why}")
    return tuple(found)
