"""The explorer's compile tickets (explorer/tickets.py) and what its status line says (words.py),
driven without Textual: which task is for what, the stages so far that wait to be drawn, what the
status line says while a variant compiles, and which task comes after the stages. Real compiles of
the samples, a clock of the test's own."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from tritonscope.core.model import VariantRequest
from tritonscope.explorer import tickets
from tritonscope.explorer.session import Session, changed, knobs, stepped
from tritonscope.explorer.tickets import Tickets, follow_up
from tritonscope.explorer.words import change, describe, fit, titles
from tritonscope.results.explore import ExploreResult

VECTOR_ADD = VariantRequest(file="sample:vector_add", target="sm90")


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def in_steps():
    """vector_add as the explorer's worker makes it: Triton's stages first (its SASS unread), then
    the SASS read and explained, then the registers live per line; and a BLOCK_SIZE=256 variant."""
    from tritonscope.app import explore

    first = explore.explored(VECTOR_ADD)
    full = explore.with_machine_code(first)
    live = explore.with_live_registers(full)
    other = explore.with_machine_code(explore.explored(VECTOR_ADD.with_value("BLOCK_SIZE", 256, constexpr=True)))
    return first, full, live, other


def test_the_ticket_modules_run_without_textual():
    code = (
        "import sys; import tritonscope.explorer.tickets, tritonscope.explorer.words, "
        "tritonscope.explorer.session, tritonscope.explorer.listing, tritonscope.explorer.contents; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


def test_a_variant_asked_replaces_what_is_in_flight_and_says_its_step(in_steps):
    first = in_steps[0]
    clock, session = Clock(), Session(VECTOR_ADD)
    t = Tickets(clock)
    assert not t.compiling and t.progress(session) is None
    t.start(1, tickets.VARIANT, session.key(VECTOR_ADD))
    assert t.compiling and t.progress(session) == "compiling: starting… 0.0 s · sample:vector_add sm90"
    t.told(1, "stage 2 of 5 (ttgir)")
    t.told(7, "stage 5 of 5 (cubin)")  # a ticket no longer awaited tells nothing
    clock.now += 1.25
    asked = VECTOR_ADD.with_value("BLOCK_SIZE", 256, constexpr=True)
    session.request = asked
    assert t.progress(session) == "compiling: stage 2 of 5 (ttgir)… 1.2 s · sample:vector_add BLOCK_SIZE=256 sm90"
    t.start(2, tickets.VARIANT, session.key(asked))  # the next key: the first is cancelled
    assert list(t.pending) == [2] and t.step == "" and t.end(1) is None
    ended = t.end(2)
    assert ended is not None and ended.kind == tickets.VARIANT and ended.key == session.key(asked)
    assert t.seconds(ended) == 0.0 and not t.compiling
    t.due = first  # shown, its follow-up due once painted
    assert t.compiling
    t.start(3, tickets.PIPELINE)
    assert t.step == "capturing the pass pipeline"
    assert t.progress(session).startswith("compiling: capturing the pass pipeline… 0.0 s")


def test_only_the_newest_stages_so_far_are_drawn_and_only_for_a_variant_asked(in_steps):
    first, full, _, other = in_steps
    session = Session(VECTOR_ADD)
    t = Tickets(Clock())
    t.start(4, tickets.VARIANT, session.key(VECTOR_ADD))
    t.arrived(4, first)
    t.arrived(4, full)  # came before the app drew the first
    assert t.newest(4) is full
    assert t.take(4, first) is None  # passed over: a newer one waits
    taken = t.take(4, full)
    assert taken is not None and taken.kind == tickets.VARIANT and t.newest(4) is None
    assert t.take(4, full) is None  # drawn once
    t.arrived(4, other)
    t.cancel()  # a variant from memory instead: what was in flight is not drawn
    assert t.take(4, other) is None and not t.compiling


def test_the_status_says_the_sass_is_read_and_nothing_while_live_registers_are(in_steps):
    first, full, _, _ = in_steps
    clock, session = Clock(), Session(VECTOR_ADD)
    session.how = "compiled in 0.4 s"
    session.arrived(session.key(VECTOR_ADD), first)
    t = Tickets(clock)
    t.start(5, tickets.MACHINE, session.key_of(first))
    clock.now += 0.5
    assert t.progress(session) == "compiled in 0.4 s; reading the SASS (nvdisasm)… 0.5 s"
    t.end(5)
    session.completed(session.key_of(first), full)
    t.start(6, tickets.LIVE, session.key_of(full))
    assert t.compiling and t.progress(session) is None  # the status says what is on screen


def test_after_the_stages_the_sass_then_the_live_registers_then_the_variant_before(in_steps):
    first, full, live, other = in_steps
    session = Session(VECTOR_ADD)
    key = session.key(VECTOR_ADD)
    session.arrived(key, first)
    assert follow_up(session) == (tickets.MACHINE, first)
    assert session.completed(key, full) == "shown" and session.shown is full
    assert follow_up(session) == (tickets.LIVE, full)
    assert session.completed(key, live) == "shown"
    assert follow_up(session) is None
    # a newer variant shown: its own follow-up first, then the one before it (cancelled before)
    session.previous = None
    session.arrived(session.key(other.request), other)
    assert session.previous is live and follow_up(session) == (tickets.LIVE, other)
    half = replace(other, explained=replace(other.explained, live_registers=True))
    session.shown = half
    session.previous = full
    assert follow_up(session) == (tickets.LIVE, full)
    assert session.completed(key, live) == "previous" and session.previous is live
    assert session.completed(("elsewhere", ""), live) is None  # neither any more: kept only


def test_a_failure_on_screen_stops_its_follow_up_and_ptxas_failing_brings_the_last_good_back(in_steps):
    from tritonscope.results.explore import CompileFailure

    first, full, live, _ = in_steps
    session = Session(VECTOR_ADD)
    session.arrived(session.key(VECTOR_ADD), live)
    early = ExploreResult(VECTOR_ADD, first.explained, early=True)
    session.show(early)  # the stages before the binary of a recompile
    assert session.shown is early and session.previous is live
    session.failed(CompileFailure(VECTOR_ADD, "ptxas failed"))
    assert session.shown is live and session.failure is not None
    assert follow_up(session) is None


def test_the_status_words_of_a_variant_and_its_change(in_steps):
    _, full, _, other = in_steps
    assert describe(full) == "BLOCK_SIZE=1024, num_warps=4, num_stages=3, sm90"
    assert change(other, full) == "BLOCK_SIZE=256 (was 1024)" and change(full, full) == ""
    narrow, wide = titles(full)
    assert narrow.startswith("add_kernel · sm90 · ") and len(narrow) <= 78 and "Triton 3." in wide
    assert fit("compiled in 0.4 s · 12 lines changed", 20) == "compiled in 0.4 s…"
    assert titles(ExploreResult(VECTOR_ADD, full.explained, early=True, partial=True))[0].endswith("making its stages…")


def test_the_triton_row_names_the_running_release_and_steps_to_another(in_steps):
    """With another release installed (`tritonscope envs`), the editor's Triton row names the running
    one by its version; stepping asks for the other, and stepping back asks for none."""
    full = in_steps[1]
    running = full.releases[0]
    two = ExploreResult(full.request, full.explained, releases=(running, "3.5.1"))
    row = next(k for k in knobs(two, ("sm90",)) if k.what == "triton")
    assert row.text == f"{running} (running)"
    other = stepped(row, True)
    assert other == "3.5.1" and changed(VECTOR_ADD, row, other).triton == "3.5.1"
    back = replace(row, value=other)
    assert back.text == "3.5.1" and changed(VECTOR_ADD, back, stepped(back, True)).triton is None
    one = ExploreResult(full.request, full.explained, releases=(running,))  # not this machine's envs
    assert not any(k.what == "triton" for k in knobs(one, ("sm90",)))  # one release: no row


def test_the_variant_screen_steps_through_targets_that_compile_differently():
    """→ on the target row from sm90 went to h200: the same SASS (an H200 is an H100's SM), a step
    that changed nothing on screen. Each code Triton makes is one step; h200 can still be typed."""
    from tritonscope.core.targets import TARGETS
    from tritonscope.explorer.app import _stepped_targets

    stepped = _stepped_targets()
    assert "h200" not in stepped and stepped[stepped.index("sm90") + 1] == "sm100"
    codes = {(t.backend, t.arch, t.warp_size) for t in TARGETS.values()}
    assert len(stepped) == len(codes)


def test_a_failed_save_undone_shows_its_variant_against_itself(in_steps):
    """A syntax error saved, then the file saved back: the variant came from memory and was diffed against
    the one before it, "133 lines changed · num_warps=8 (was 4)", a change made two steps earlier (h24b)."""
    from tritonscope.explorer.session import CompileFailure

    first, full, _, other = in_steps
    session = Session(VECTOR_ADD)
    session.arrived(session.key(VECTOR_ADD), full)
    session.arrived(session.key(other.request), other)
    assert session.previous is full
    session.failed(CompileFailure(other.request, "add.py:23: syntax error"))
    assert session.shown is other and session.failure is not None
    session.show(other)  # the same key again: from memory
    assert session.shown is other and session.previous is other and session.failure is None
