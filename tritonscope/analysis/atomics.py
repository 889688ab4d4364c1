"""How long a launch's atomics take in the L2, where each is carried out: the launch limit `atomics`.

An atomic is done by the L2 slice that holds its address, one sector's operation at a time: a warp's
atomics on 32 scattered addresses are 32 operations, on 32 consecutive 4-byte ones 4. Operations on
different addresses run side by side across the slices, up to the GPU's peak; operations on one
address wait for each other. So the rate depends on how many addresses the atomics share and how
many slices those lie in:

    rate (a clock) = min(PEAK, PER_SLICE x slices, PER_ADDRESS x addresses)

where `slices` is the bytes the addresses span over SLICE_BYTES (at least 1). A histogram's 256
int32 bins (1 KB) take the rate of one slice; its 2^20 bins (4 MB) the GPU's peak. The addresses
are those program_traffic.py finds: a table's (data within known bounds: `bins_ptr + x % 256`),
a tile's (known addresses: a split-K reduction), or, for data of unknown bounds, as many as the
operations (scattered: no waiting).

The figures were set on the H200 (benchmarks/atomics.py; docs/data/h200-atomics): 2^25 int32
`atomic_add`s into 16, 256, 4,096, 65,536 and 2^20 bins took 6.2, 4.2-8.7 (the same code, bins
allocated elsewhere), 0.96, 0.43 and 0.34 ms: an integer add runs at up to 50 operations a clock,
2.5 a slice. A float add, a max and the others, at up to 30 and 1.75, and one address's one every 2
clocks (131,072 programs adding to one counter: 133 us) were set on kernels measured after the
form was chosen. Other GPUs are taken at the same rates a clock.
"""

from __future__ import annotations

import numpy as np

from .program_traffic import SECTOR, Access, Traffic

SLICE_BYTES = 2048  # the addresses one L2 slice holds together (the interleave), as the rates fit it
PER_ADDRESS = 0.5  # operations a clock on one address
# (peak, per slice) operations a clock: an integer add; any other atomic (a float add, min, max, exchange, cas)
INTEGER_ADD = (50.0, 2.5)
OTHER = (30.0, 1.75)


def seconds(traffic: Traffic, clock_hz: float) -> tuple[float, str] | None:
    """The launch's atomics' time in the L2 and what it is made of, in words; None without atomics."""
    scale = traffic.programs / max(traffic.evaluated, 1)
    total, largest, said = 0.0, 0.0, ""
    for access in traffic.accesses:
        if not access.atomic:
            continue
        operations = max(float(access.bytes.sum()) / SECTOR, access.all_runs * access.in_bounds) * scale
        addresses, span = _addresses(access, operations)
        peak, per_slice = INTEGER_ADD if access.atomic == "add" else OTHER
        rate = min(peak, per_slice * max(1.0, span / SLICE_BYTES), PER_ADDRESS * addresses)
        time = operations / (rate * clock_hz)
        if time > largest:  # the access that takes longest says what the limit is made of
            plural = "es" if addresses > 1 else ""
            said = f"{_count(operations)} atomics on {_count(addresses)} address{plural}, {rate:.3g} a clock"
        total, largest = total + time, max(largest, time)
    return (total, said) if total else None


def _addresses(access: Access, operations: float) -> tuple[float, float]:
    """(how many addresses the atomics share, the bytes they span)."""
    if access.table:
        return access.table / access.width, access.table
    if access.known:
        tiles = float(np.unique(access.first).size) * max(access.elements, 1)
        return tiles, tiles * access.width
    return operations, operations * SECTOR  # scattered over data of unknown bounds: none wait


def _count(number: float) -> str:
    """`4,096`; `33.6 million`."""
    return f"{number:,.0f}" if number < 1e6 else f"{number / 1e6:,.3g} million"
