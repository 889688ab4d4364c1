"""Atomics fenced by their default ordering: `tl.atomic_add` (and max, min, and, or, xor) orders
itself as `sem="acq_rel"` unless told otherwise, and on NVIDIA ptxas puts a fence (MEMBAR.ALL.GPU)
before each: the thread waits for its earlier memory operations to complete before every update.
A histogram's or a counter's sums need no such order; `sem="relaxed"` drops the fences, and an update
whose old value is unused becomes a fire-and-forget RED. A compare-and-swap or an exchange (a lock)
is left alone: its order is what it is for."""

from __future__ import annotations

import re

from ...core.quantities import count
from ..cost import machine_listing
from ..opcodes import ATOMIC
from .kernel import Kernel
from .kinds import ATOMIC_FENCES
from .model import Finding

_REDUCING = re.compile(r"\batomic_(add|max|min|and|or|xor)\s*\(")


def atomic_fences(k: Kernel) -> list[Finding]:
    machine = k.target.vendor.machine_code
    fences: dict[int, int] = {}
    atomics: dict[int, int] = {}
    for _, op, lines in machine_listing(k.c, machine, k.module):
        if not lines:
            continue
        if op.opcode.startswith("MEMBAR"):
            fences[lines[0]] = fences.get(lines[0], 0) + 1
        elif op.kind == ATOMIC:
            atomics[lines[0]] = atomics.get(lines[0], 0) + 1
    source = dict(enumerate(k.c.kernel.source.splitlines(), start=k.c.kernel.first_line))
    found = []
    for line, fenced in sorted(fences.items()):
        code = source.get(line, "")
        call = _REDUCING.search(code)
        if call is None or "sem=" in code or not atomics.get(line):
            continue
        name = f"tl.atomic_{call.group(1)}"
        found.append(
            Finding(
                ATOMIC_FENCES,
                line,
                f"{name} orders itself as sem='acq_rel' (its default): {count(fenced, 'fence')} "
                f"(MEMBAR) for its {count(atomics[line], 'atomic')} per thread, each waiting for the "
                "thread's earlier memory operations",
                f"{machine.name} on line {line}: {count(atomics[line], 'atomic')}, {count(fenced, 'MEMBAR')}",
                "sem='relaxed' where the updates need no order against the other accesses (a histogram's or a "
                "counter's sums): no fence, and an update whose old value is unused is sent without waiting "
                "(RED); a change of the source, not compiled here",
            )
        )
    return found
