"""Which instruction each scoreboard wait waits for, read off the control codes (parsers/sass_control.py).

A variable-latency instruction names a scoreboard (0-5) in its control code: its write scoreboard
is released when its result is written, its read scoreboard when its source registers have been
read. A later instruction that needs either waits on that scoreboard (its wait mask), or a
`DEPBAR.LE SBk, N` waits until at most N of scoreboard k's producers are outstanding. A
scoreboard counts its producers: a wait on it waits for every producer that set it since the
last wait on it. Hopper's warp-group matrix instructions are tracked apart: an HGMMA marked
`gsb0` ends a group that `WARPGROUP.DEPBAR.LE gsb0, N` waits for.

The producers still outstanding at each instruction are found by a data-flow pass over the
kernel's control-flow graph (branches, calls, exits), so a load issued at the end of a loop
body and waited for at the top of the next iteration is found. Each wait then names its
producers; an asynchronous copy's commit (LDGDEPBAR) and a warp-group's last HGMMA stand for
the copies and matrix instructions of their group (`members`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from ..core.errors import TritonscopeError
from ..core.model import Compilation
from ..core.stages import Stage
from ..parsers import cubin_code, sass_control, sass_listing
from ..parsers.errors import ParseError
from ..parsers.sass_control import Control
from ..parsers.sass_listing import Instruction, Listing

GROUP = "gsb0"  # the warp-group matrix scoreboard
_DEPBAR = re.compile(r"^SB(\d)$")
_UNCONDITIONAL_END = ("EXIT", "RET", "BPT", "KILL")
_INDIRECT = ("BRX", "JMX", "JMP")

State = tuple[tuple[str, tuple[int, ...]], ...]  # (scoreboard, producers outstanding, oldest first)


@dataclass(frozen=True)
class Wait:
    """One scoreboard an instruction waits on, and the instructions that set it."""

    offset: int  # the instruction that waits (a DEPBAR's wait holds up the instruction after it)
    scoreboard: str  # SB0 ... SB5, or gsb0
    producers: tuple[int, ...]  # offsets of the instructions outstanding on it, in the order they were reached
    partial: bool = False  # DEPBAR.LE ..., N with N > 0: it waits for all but the N most recent of them


@dataclass(frozen=True)
class Scheduled:
    """One machine instruction with its control code, its waits and its kernel-file lines."""

    offset: int
    opcode: str  # with its modifiers
    text: str  # as nvdisasm prints it: predicate, opcode, operands
    control: Control
    lines: tuple[int, ...]  # the kernel-file lines it counts for (analysis/cost.py's line map)
    waits: tuple[Wait, ...] = ()
    word: int = 0  # the 128-bit instruction word the control code was read from


@dataclass(frozen=True)
class Schedule:
    """A kernel's machine code as the scheduler sees it."""

    instructions: tuple[Scheduled, ...]  # by offset
    layout: str  # how the control-code layout is known for this target (sass_control.layout_evidence)
    listing: Listing
    controls: dict[int, Control]
    subroutines: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = ()  # subroutines(listing), found once

    def at(self, offset: int) -> Scheduled:
        return self.instructions[self.index[offset]]

    @cached_property
    def index(self) -> dict[int, int]:
        """{offset: its place in `instructions`}."""
        return {s.offset: i for i, s in enumerate(self.instructions)}

    @cached_property
    def edges(self) -> dict[int, tuple[int, ...]]:
        """successors(listing), read once: the walk's loops and whether their back edges branch."""
        return successors(self.listing)


def schedule(c: Compilation) -> Schedule | None:
    """The schedule of an NVIDIA compile's SASS; None without SASS and its binary (AMD, or an
    nvdisasm older than the target)."""
    from . import cost

    target = c.variant.target_info
    if target.vendor.machine_code is not Stage.SASS or not c.stages.get(Stage.SASS) or not c.binary:
        return None
    listing = sass_listing.parse(c.stages[Stage.SASS])
    if not listing.instructions:
        return None
    try:
        code = cubin_code.kernel_code(c.binary, str(c.metadata.get("name", "")))
        controls, layout = sass_control.decode(code), sass_control.layout_evidence(int(target.arch))
    except ParseError as exc:  # a damaged cubin (a cache entry): tritonscope's error, with the parser's words
        raise TritonscopeError(str(exc)) from None
    words = sass_control.words(code)
    found = waits(listing, controls)
    by_line = {number: tuple(lines) for number, _, lines in cost.machine_listing(c, Stage.SASS)}
    lines = {s.offset: by_line.get(s.listing_line, ()) for s in listing.instructions}
    called = tuple(subroutines(listing))
    for body, calls in called:  # a subroutine's work is its callers' lines' (ptxas gives it the last)
        callers = tuple(dict.fromkeys(line for call in calls for line in lines[call]))
        lines.update(dict.fromkeys(body, callers))
    steps = tuple(
        Scheduled(
            s.offset,
            s.opcode,
            " ".join(filter(None, (s.predicate, s.opcode, ", ".join(s.operands)))),
            controls[s.offset],
            lines[s.offset],
            found.get(s.offset, ()),
            words.get(s.offset, 0),
        )
        for s in listing.instructions
    )
    return Schedule(steps, layout, listing, controls, called)


def successors(listing: Listing) -> dict[int, tuple[int, ...]]:
    """{offset: the offsets control may go to next}."""
    steps = listing.instructions
    after = {steps[i].offset: steps[i + 1].offset for i in range(len(steps) - 1)}
    returns = tuple(after[s.offset] for s in steps if s.base == "CALL" and s.offset in after)
    every_label = tuple(sorted(set(listing.labels.values())))
    found = {}
    for step in steps:
        conditional = bool(step.predicate) and step.predicate != "@PT"
        target = listing.labels.get(step.target) if step.target else None
        nxt = (after[step.offset],) if step.offset in after else ()
        if step.base in _UNCONDITIONAL_END:
            found[step.offset] = (returns if step.base == "RET" else ()) + (nxt if conditional else ())
        elif step.base in _INDIRECT:
            found[step.offset] = every_label + nxt
        elif step.base == "BRA" and target is not None:
            operand_predicate = any(o.lstrip("!").startswith(("P", "UP")) for o in step.operands[:-1])
            found[step.offset] = (target,) + (nxt if conditional or operand_predicate else ())
        elif step.base == "CALL" and target is not None:
            found[step.offset] = (target, *nxt)
        else:
            found[step.offset] = nxt
    return found


def subroutines(listing: Listing) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(the body's offsets, the CALLs to it) of each subroutine: from a CALL's target to the first
    RET after it, with no EXIT between (ptxas's routines, the int64 remainder's, follow the kernel's
    EXIT; a CALL to code that runs on to EXIT is a branch)."""
    steps = listing.instructions
    callers: dict[int, list[int]] = {}
    for step in steps:
        target = listing.labels.get(step.target) if step.base == "CALL" and step.target else None
        if target is not None:
            callers.setdefault(target, []).append(step.offset)
    found = []
    for entry, calls in callers.items():
        body = [s for s in steps if s.offset >= entry]
        end = next((i for i, s in enumerate(body) if s.base in ("RET", "EXIT")), None)
        if end is not None and body[end].base == "RET":  # `@!P5 CALL.REL.NOINC` to the next line leaves a loop
            found.append((tuple(s.offset for s in body[: end + 1]), tuple(calls)))
    return found


def waits(listing: Listing, controls: dict[int, Control]) -> dict[int, tuple[Wait, ...]]:
    """{offset: the scoreboard waits of that instruction} (DEPBARs under their own offset)."""
    before = _outstanding(listing, controls)
    found: dict[int, tuple[Wait, ...]] = {}
    for step in listing.instructions:
        pending = dict(before.get(step.offset, ()))
        these = [Wait(step.offset, f"SB{b}", pending.get(f"SB{b}", ())) for b in controls[step.offset].wait]
        counted = counted_wait(step)
        if counted is not None:
            board, keep = counted
            these.append(Wait(step.offset, board, pending.get(board, ()), partial=keep > 0))
        if these:
            found[step.offset] = tuple(these)
    return found


def counted_wait(step: Instruction) -> tuple[str, int] | None:
    """(scoreboard, how many may stay outstanding) of a DEPBAR.LE or WARPGROUP.DEPBAR.LE."""
    if step.base not in ("DEPBAR", "WARPGROUP") or ".LE" not in step.opcode or len(step.operands) < 2:
        return None
    if step.base == "WARPGROUP":
        return (GROUP, int(step.operands[1], 0)) if step.operands[0] == GROUP else None
    board = _DEPBAR.match(step.operands[0])
    return (f"SB{board.group(1)}", int(step.operands[1], 0)) if board else None


def _outstanding(listing: Listing, controls: dict[int, Control]) -> dict[int, State]:
    """{offset: the producers outstanding on each scoreboard as the instruction is reached}."""
    edges = successors(listing)
    by_offset = {s.offset: s for s in listing.instructions}
    start = listing.instructions[0].offset if listing.instructions else 0
    before: dict[int, State] = {start: ()}
    work = [start]
    while work:
        offset = work.pop()
        out = _transfer(by_offset[offset], controls[offset], before[offset])
        for nxt in edges.get(offset, ()):
            merged = _join(before.get(nxt), out)
            if merged != before.get(nxt):
                before[nxt] = merged
                work.append(nxt)
    return before


def _transfer(step: Instruction, control: Control, state: State) -> State:
    pending = dict(state)
    for waited in control.wait:
        pending.pop(f"SB{waited}", None)
    counted = counted_wait(step)
    if counted is not None:
        name, keep = counted
        pending[name] = pending.get(name, ())[-keep:] if keep else ()
    for board in {b for b in (control.write, control.read) if b is not None}:
        pending[f"SB{board}"] = (*pending.get(f"SB{board}", ()), step.offset)
    if step.base == "HGMMA" and GROUP in step.operands:
        pending[GROUP] = (*pending.get(GROUP, ()), step.offset)
    return tuple(sorted((k, v) for k, v in pending.items() if v))


def _join(old: State | None, new: State) -> State:
    if old is None:
        return new
    merged = dict(old)
    for board, producers in new:
        merged[board] = tuple(dict.fromkeys((*merged.get(board, ()), *producers)))
    return tuple(sorted(merged.items()))


def groups(listing: Listing) -> dict[int, tuple[int, ...]]:
    """{producer: the instructions it stands for}, for the producers that stand for a group: an
    LDGDEPBAR commits the asynchronous copies since the previous commit; an HGMMA marked gsb0 ends
    the warp-group's matrix instructions since the previous group or WARPGROUP op."""
    found: dict[int, tuple[int, ...]] = {}
    copies: list[int] = []
    matrix: list[int] = []
    for step in listing.instructions:
        if step.base == "LDGSTS":
            copies.append(step.offset)
        elif step.base == "LDGDEPBAR":
            found[step.offset], copies = tuple(copies) or (step.offset,), []
        elif step.base == "WARPGROUP":
            matrix = []
        elif step.base == "HGMMA":
            matrix.append(step.offset)
            if GROUP in step.operands:
                found[step.offset], matrix = tuple(matrix), []
    return found
