"""The scoreboard invariant the control-code decoder is held to on real machine code: every use of
a variable-latency result (a register written by an instruction that names a write scoreboard, or
an HGMMA's accumulators) is preceded, on every path, by a wait on the scoreboard its producer set.

ptxas guarantees it, so a violation means the decoder (or tritonscope's reading of the listing)
is wrong: a field read from the wrong bits breaks it at once. Registers are followed through the
control-flow graph that analysis/scoreboards.py builds; a producer's destinations are read from its
operands (the first register, or the second after a predicate destination) and widths (.64, .128,
LDSM's count, an HGMMA's N/2 accumulators).
"""

from __future__ import annotations

import re

from tritonscope.analysis import scoreboards
from tritonscope.parsers.sass_control import Control
from tritonscope.parsers.sass_listing import Instruction, Listing

_REGISTER = re.compile(r"\b(U?R)(\d+)(\.64|\.128)?\b")
_DESTINATION = re.compile(r"(U?R)(\d+)")
_PREDICATE = re.compile(r"!?U?P[T\d]")

Pending = frozenset[tuple[str, str, int]]  # (register, scoreboard, producer offset)


def written(step: Instruction) -> tuple[str, ...]:
    """The registers a variable-latency instruction writes."""
    operands = list(step.operands)
    while len(operands) > 1 and _PREDICATE.fullmatch(operands[0]):
        operands.pop(0)
    first = _DESTINATION.fullmatch(operands[0]) if operands else None
    if first is None:
        return ()
    modifiers = step.opcode.split(".")[1:]
    count = 1
    if step.base == "HGMMA":
        n = int(re.match(r"64x(\d+)x", modifiers[0]).group(1))
        count = n // 2 if "F32" in modifiers else n // 4
    elif step.base == "LDSM":
        count = int(modifiers[-1]) if modifiers[-1].isdigit() else 1
    elif "128" in modifiers:
        count = 4
    elif "64" in modifiers or "F64" in modifiers:
        count = 2
    return tuple(f"{first.group(1)}{int(first.group(2)) + k}" for k in range(count))


def read(step: Instruction) -> set[str]:
    """Every register an instruction's operands name (a .64 or .128 operand: its neighbours too)."""
    found = set()
    for operand in step.operands:
        for match in _REGISTER.finditer(operand):
            width = {".64": 2, ".128": 4}.get(match.group(3) or "", 1)
            found.update(f"{match.group(1)}{int(match.group(2)) + k}" for k in range(width))
    return found


def violations(listing: Listing, controls: dict[int, Control]) -> list[tuple[int, int, str, str]]:
    """(producer, user, register, scoreboard) for every use not preceded by the wait it needs."""
    edges = scoreboards.successors(listing)
    steps = {s.offset: s for s in listing.instructions}
    start = listing.instructions[0].offset
    before: dict[int, Pending] = {start: frozenset()}
    work, bad = [start], set()
    finished = _groups_finished(listing, controls)
    while work:
        offset = work.pop()
        step, control = steps[offset], controls[offset]
        done = finished.get(offset, set())
        pending = {p for p in before[offset] if p[1] not in _waited(step, control) and p[2] not in done}
        uses = read(step) if step.base != "HGMMA" else set()  # a chain of HGMMAs shares its accumulators
        bad.update((producer, offset, register, board) for register, board, producer in pending if register in uses)
        board = f"SB{control.write}" if control.write is not None else None
        if step.base == "HGMMA":
            board = scoreboards.GROUP
        if board:
            pending |= {(register, board, offset) for register in written(step)}
        out = frozenset(pending)
        for nxt in edges.get(offset, ()):
            merged = before.get(nxt, frozenset()) | out
            if merged != before.get(nxt):
                before[nxt] = merged
                work.append(nxt)
    return sorted(bad)


def _groups_finished(listing: Listing, controls: dict[int, Control]) -> dict[int, set[int]]:
    """{offset of a `WARPGROUP.DEPBAR.LE gsb0, N` with N > 0: the HGMMAs it waits for}: every group
    but the N most recent (scoreboards.py follows which are outstanding there), each with its members."""
    members = scoreboards.groups(listing)
    found = {}
    for offset, waits in scoreboards.waits(listing, controls).items():
        for wait in waits:
            if wait.scoreboard == scoreboards.GROUP and wait.partial:
                keep = int(next(s for s in listing.instructions if s.offset == offset).operands[1], 0)
                # oldest first: a group ended past the wait in the listing is a previous iteration's
                ends = sorted(wait.producers, key=lambda end: (end < offset, end))
                ended = ends[:-keep] if len(ends) > keep else ()
                found[offset] = {m for end in ended for m in members.get(end, (end,))}
    return found


def _waited(step: Instruction, control: Control) -> set[str]:
    """The scoreboards an instruction waits on until none of their producers is outstanding."""
    waited = {f"SB{b}" for b in control.wait}
    if step.base in ("DEPBAR", "WARPGROUP") and ".LE" in step.opcode and len(step.operands) > 1:
        if int(step.operands[1], 0) == 0:
            waited.add(step.operands[0])
    return waited
