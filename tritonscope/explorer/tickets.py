"""The explorer's compile tickets: what each task in its child is for (a variant asked for, the
machine code or the registers live per line of one on screen, a pass pipeline), the step it is at,
the stages so far that wait to be drawn, what the status line says meanwhile, and which task comes
next. Plain state, no widgets: the app (app.py) starts the tasks and draws what this decides, and
tests/test_explorer_tickets.py drives it without Textual.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ..core.stages import Stage
from ..results.explore import ExploreResult
from .session import Key, Session
from .words import describe_request

VARIANT, MACHINE, LIVE, PIPELINE = "variant", "machine", "live", "pipeline"  # what a ticket is for
ASKED = (VARIANT, PIPELINE)  # asked for by a key: each replaces what was in flight (compiles.py cancels it)


@dataclass(frozen=True)
class Ticket:
    kind: str  # VARIANT, MACHINE, LIVE or PIPELINE
    key: Key | None  # the variant's key in the session's memory (none for a pipeline)
    started: float  # the clock's time when it was asked for


class Tickets:
    """The tasks in flight by ticket (compiles.py numbers them), in the order asked."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.pending: dict[int, Ticket] = {}
        self.step = ""  # the step the variant (or pipeline) asked for is at, as its compile tells it
        self.due: ExploreResult | None = None  # on screen, its follow-up started once it is painted
        self._early: dict[int, ExploreResult] = {}  # ticket -> its newest stages so far, not drawn yet

    @property
    def compiling(self) -> bool:
        """Whether a task is in flight, or a variant's follow-up is due once it is painted."""
        return bool(self.pending) or self.due is not None

    def start(self, ticket: int, kind: str, key: Key | None = None) -> None:
        """A task started: one asked for (a variant, a pipeline) replaces those in flight."""
        if kind in ASKED:
            self.pending.clear()
            self.step = "capturing the pass pipeline" if kind == PIPELINE else ""
        self.pending[ticket] = Ticket(kind, key, self.clock())

    def cancel(self) -> None:
        """What is in flight is dropped (a variant came from memory instead)."""
        self.pending.clear()

    def told(self, ticket: int, step: str) -> None:
        if ticket in self.pending:
            self.step = step

    def end(self, ticket: int) -> Ticket | None:
        """The ticket's task ended: what it was for, or None when it is no longer awaited."""
        return self.pending.pop(ticket, None)

    def seconds(self, ticket: Ticket) -> float:
        return self.clock() - ticket.started

    def arrived(self, ticket: int, result: ExploreResult) -> None:
        """A compile's stages so far (from the compiles' thread): the newest only is drawn."""
        self._early[ticket] = result

    def newest(self, ticket: int) -> ExploreResult | None:
        return self._early.get(ticket)

    def take(self, ticket: int, result: ExploreResult) -> Ticket | None:
        """`result`, the stages so far of `ticket`, to be drawn now: its variant's ticket, or None
        where a newer one came (drawn, or waiting) or the variant is no longer asked for."""
        if self._early.get(ticket) is not result:
            return None
        del self._early[ticket]
        asked = self.pending.get(ticket)
        return asked if asked is not None and asked.kind == VARIANT else None

    def progress(self, session: Session) -> str | None:
        """What the status line says of the task in flight, or None where it says what is on screen."""
        if not self.pending:
            return None
        ticket = next(iter(self.pending.values()))
        seconds = self.seconds(ticket)
        if ticket.kind == MACHINE:
            shown = session.shown
            reading = shown is not None and shown.unread is not None
            return f"{session.how}; reading the SASS (nvdisasm)… {seconds:.1f} s" if reading else None
        if ticket.kind == LIVE:
            return None  # the stages are on screen: the status says what they are
        asked = describe_request(session.request)
        return f"compiling: {self.step or 'starting'}… {seconds:.1f} s · {asked}"


def follow_up(session: Session) -> tuple[str, ExploreResult] | None:
    """What comes after Triton's stages, one task at a time: the SASS (nvdisasm) with explain's cost and
    findings (MACHINE), then the registers live per line (LIVE, nvdisasm's life ranges); for the
    variant on screen, then for the one before it (the diff's other side, whose follow-up a newer
    request cancelled). None when both are whole, or the compile on screen failed."""
    for result in (session.shown, session.previous):
        if result is None or session.failure is not None and result is session.shown:
            continue
        if result.unread is not None:
            return MACHINE, result
        if not result.explained.live_registers and Stage.SASS in result.compilation.stages:
            return LIVE, result
    return None
