"""Which of a launch's reads the DRAM serves and which the L2 does: the reuse that tile order gives.

The programs run in launch order, `slots` at a time (the SMs times the blocks each holds: a wave).
A tile (one access of one program, told apart by its pointer argument and first byte: program_traffic.py)
that several programs of a wave read comes from the DRAM once: they read it at about the same time.
A tile read again in a later wave is still in the L2 when what was read in between (the tiles of the
waves since, each counted once per wave) is less than the L2 holds; else it comes from the DRAM
again. So a grouped order (`GROUP_M`), whose waves cover a squarer block of a matmul's output, reads
fewer tiles per wave and keeps them longer. Writes go to the DRAM once. A read whose address is data
(a gather) is a tile of its own where the data's origin is not known, from the DRAM every time;
where it is (program_traffic.py: the indices' addresses), programs that loaded the same indices
read the same tile. A gather or scatter whose addresses are data within known bounds (a lookup
table, a histogram's bins: program_traffic.py's `table`) comes from the DRAM once where the table
fits in the L2, and for the share of its accesses that miss where it does not (the L2 holding a
random part of it); what is written there goes back once. The L2's own traffic is every program's
every access, a scattered piece narrower than its port (L2_PORT) taking a whole port's clock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..core.model import Compilation
from ..core.stages import Stage
from . import linemap
from .dram_granule import element_stride, scattered
from .program_traffic import SECTOR, Access, Traffic

# An L2 slice moves 64 bytes a clock (the A100 whitepaper's 5,120 bytes a clock over its 80 slices). A
# lookup into a table the L2 holds (4 MB, 16 MB) took 240-248 us on the H200 for 1.07 GB of 32-byte
# sectors, about 64 bytes of the L2's time each (benchmarks/atomics.py; docs/data/h200-atomics).
L2_PORT = 64
# A table this small stays in each SM's L1, which asks the L2 for it once: any split of an SM's 256 KB
# (H100; 192 KB A100) between shared memory (228 KB at most; 164) and the L1 leaves it 28 KB. A lookup into
# 1 KB took 70 us on the H200, a plain copy's time.
L1_TABLE = 28 * 1024


@dataclass(frozen=True)
class MemoryTraffic:
    """The whole launch's bytes."""

    dram: float  # to and from the DRAM
    l2: float  # what the SMs ask of the L2: every read and write of every program
    distinct: float  # tiles read, each once: the least the DRAM could serve
    again: float  # read again from the DRAM after the L2 let them go
    written: float
    loaded: float = 0.0  # the bytes the loads carry, as warps keep them in flight (no sector's waste)


def memory_traffic(
    traffic: Traffic,
    slots: int,
    capacity: float,
    granules: dict[int, float] | None = None,
    multiprocessors: int = 0,
) -> MemoryTraffic:
    """The DRAM's and the L2's bytes for a launch whose waves are `slots` programs and whose L2 keeps
    `capacity` bytes of reads for later waves (module docstring). `granules`: {access's index: the
    DRAM's bytes over its bytes} for accesses of narrow pieces (dram_granule.py); `multiprocessors`:
    the SMs whose L1s hold a small table (L1_TABLE), each asking the L2 for it once."""
    scale = traffic.programs / max(traffic.evaluated, 1)
    waves = np.arange(traffic.evaluated) // max(slots, 1)
    granules = granules or {}
    as_dram = [replace(a, bytes=a.bytes * granules[i]) if i in granules else a for i, a in enumerate(traffic.accesses)]
    loads = [a for a in as_dram if a.kind == "load" and not a.table]
    stores = [a for a in as_dram if a.kind != "load" and not a.table]
    read = _distinct(loads, waves)
    written = _distinct(stores, waves)
    gathered = float(sum(a.bytes.sum() for a in loads if not a.known and not a.keyed))
    per_wave = _per_wave_bytes([read, written], waves)
    first, again = _reads(read, per_wave, capacity)
    l2 = sum(_l2_bytes(a, scale, multiprocessors) for a in traffic.accesses) * scale
    once = missed = written_back = 0.0  # the tables', over the launch
    for access in (a for a in as_dram if a.table):
        its_once, its_missed = _table_bytes(access, scale, capacity)
        once, missed = once + its_once, missed + its_missed
        written_back += its_once if access.kind != "load" else 0.0
    stored = float(written[2].sum())
    dram = (first + again + gathered + stored) * scale + once + missed
    distinct = (first + gathered) * scale + once
    # the bytes the loads carry, in a warp's loads in flight's units (no sector's waste)
    asked = (a for a in traffic.accesses if a.kind == "load")  # their own bytes, not the DRAM's granules
    loaded = sum(_once_per_sm(a, float(a.bytes.sum()), scale, multiprocessors) for a in asked) * scale
    return MemoryTraffic(dram, l2, distinct, again * scale + missed, stored * scale + written_back, loaded)


def _l2_bytes(access: Access, scale: float, multiprocessors: int) -> float:
    """An access's bytes of the L2's time over the evaluated programs (the launch's: times `scale`): its
    bytes, but an L2 slice's port moves L2_PORT bytes a clock, so a scattered run narrower than that (a
    gather's 4-byte elements, a sector each; a strided tile's elements) takes the port's clock; a table
    the L1s hold, read once per SM over the launch (written, or an atomic's, in the L2)."""
    moved = float(access.bytes.sum())
    if 0 < access.run < L2_PORT:
        moved *= L2_PORT / max(access.run, SECTOR)
    elif stride := element_stride(access):  # a strided tile's elements: a port's clock each, or their share
        moved *= min(stride, L2_PORT) / access.width
    return _once_per_sm(access, moved, scale, multiprocessors)


def _once_per_sm(access: Access, moved: float, scale: float, multiprocessors: int) -> float:
    """An access's MOVED bytes, but a table the L1s hold (a load's), asked of the L2 once per SM over the launch."""
    if access.table and access.table <= L1_TABLE and multiprocessors and access.kind == "load":
        return min(moved, access.table * multiprocessors / scale)
    return moved


def _table_bytes(access: Access, scale: float, capacity: float) -> tuple[float, float]:
    """(bytes of a table the DRAM serves once, bytes it serves again): the table's bytes, or fewer where
    fewer are accessed; past the L2's `capacity`, the accesses that miss it (it holds a random part of
    the table), where they are more, each a whole line where its runs are shorter (dram_granule.py)."""
    moved = float(access.bytes.sum()) * scale
    once = min(moved, access.table)
    missed = moved * (1 - capacity / access.table) if access.table > capacity else 0.0
    missed *= scattered(access).factor if access.run else 1.0
    return once, max(0.0, missed - once)


def _distinct(accesses: list[Access], waves: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (wave, tile) pairs of some accesses with known addresses: (their wave, their
    tile's number, its bytes: the most any program of the wave moves of it)."""
    known = [a for a in accesses if a.known or a.keyed]
    if not known:
        empty = np.zeros(0, np.int64)
        return empty, empty, np.zeros(0)
    wave = np.tile(waves, len(known))
    moved = np.concatenate([a.bytes for a in known])
    tile, tiles = _tiles(known)
    used = moved > 0
    pair = wave[used] * tiles + tile[used]
    pairs, at = np.unique(pair, return_inverse=True)
    most = np.zeros(pairs.size)
    np.maximum.at(most, at.reshape(-1), moved[used])
    return pairs // tiles, pairs % tiles, most


def _tiles(known: list[Access]) -> tuple[np.ndarray, int]:
    """Each (access, program)'s tile number, a tile being one pointer argument's first byte; and how
    many tiles there are."""
    tile = np.zeros(sum(a.first.size for a in known), np.int64)
    starts = np.cumsum([0] + [a.first.size for a in known])
    tiles = 0
    for base in dict.fromkeys(a.base for a in known):
        mine = [i for i, a in enumerate(known) if a.base == base]
        found, number = np.unique(np.concatenate([known[i].first for i in mine]), return_inverse=True)
        number = number.reshape(-1) + tiles
        at = 0
        for i in mine:
            size = known[i].first.size
            tile[starts[i] : starts[i] + size] = number[at : at + size]
            at += size
        tiles += found.size
    return tile, max(tiles, 1)


def _per_wave_bytes(sets: list[tuple[np.ndarray, np.ndarray, np.ndarray]], waves: np.ndarray) -> np.ndarray:
    """Bytes of distinct tiles each wave touches, reads and writes: what pushes older tiles out."""
    count = int(waves.max()) + 1 if waves.size else 1
    total = np.zeros(count)
    for wave, _, moved in sets:
        np.add.at(total, wave, moved)
    return total


def _reads(
    read: tuple[np.ndarray, np.ndarray, np.ndarray], per_wave: np.ndarray, capacity: float
) -> tuple[float, float]:
    """(bytes of tiles read for the first time, bytes read again from the DRAM): a tile read in wave w
    and last in wave v comes again from the DRAM when the waves between them, and half of w, touched
    more than the L2 keeps."""
    wave, tile, moved = read
    if not wave.size:
        return 0.0, 0.0
    order = np.lexsort((wave, tile))
    wave, tile, moved = wave[order], tile[order], moved[order]
    repeat = np.zeros(wave.size, bool)
    repeat[1:] = tile[1:] == tile[:-1]
    previous = np.where(repeat, np.roll(wave, 1), -1)
    before = np.concatenate([[0.0], np.cumsum(per_wave)])  # before[w]: bytes of the waves before w
    between = before[wave] - before[previous + 1] + per_wave[wave] / 2
    evicted = repeat & (between > capacity)
    return float(moved[~repeat].sum()), float(moved[evicted].sum())


def line_shares(c: Compilation, traffic: Traffic) -> dict[int, float]:
    """Per kernel-file line whose masks keep some elements out (a block wider than its row), the share of
    its accesses' elements they let through, weighted by the elements: a masked-off element moves nothing.
    (A tile other programs of the wave read too is not taken off here: decode attention's K and V, read by
    every query head of a group, cost the H200 905 us at 8 and 32 heads a group against 1,071 at 1, where
    taking the shared rows off the walk's DRAM demand gave 439 us; the walk's queue is the warps' gathers
    in the memory system, not the DRAM's bytes alone.)"""
    through: dict[int, float] = {}  # per line: bytes the masks let through
    tiles: dict[int, float] = {}  # and the tiles' bytes
    for access in traffic.accesses:
        line = linemap.kernel_line(c, Stage.TTIR, access.line)
        if line is None or access.block:
            continue
        tile = access.elements * access.width * access.all_runs
        through[line] = through.get(line, 0.0) + tile * access.in_bounds
        tiles[line] = tiles.get(line, 0.0) + tile
    return {line: through[line] / tiles[line] for line in through if through[line] < 0.99 * tiles[line]}
