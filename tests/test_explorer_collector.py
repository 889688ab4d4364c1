"""The explorer's full garbage collections (explorer/collector.py): Python's own stop while the app
runs, and the explorer's run between keys, free what Textual's frames leave in reference cycles,
and cost nothing on an idle screen."""

from __future__ import annotations

import gc
import time
import weakref

import pytest

from tritonscope.explorer import collector
from tritonscope.explorer.collector import Collector


class Cycle:
    """An object only a full collection frees once it reached the oldest generation."""

    def __init__(self):
        self.me = self


@pytest.fixture
def started():
    before = gc.get_threshold()
    keeper = Collector()
    keeper.start()
    yield keeper
    keeper.stop()
    assert gc.get_threshold() == before


def _cycle_in_the_oldest_generation() -> weakref.ref:
    """A reference cycle promoted to the oldest generation, as a frame's rows are, then dropped."""
    cycle = Cycle()
    gc.collect(1)  # survives the young and the middle generation: now in the oldest
    ref = weakref.ref(cycle)
    del cycle
    gc.collect(1)  # the middle generation's collections do not reach it
    assert ref() is not None
    return ref


def test_python_stops_its_own_full_collections_and_gets_them_back(started):
    young, middle, oldest = gc.get_threshold()
    assert oldest == collector.NEVER and young > 0 and middle > 0
    started.stop()
    assert gc.get_threshold()[2] < collector.NEVER
    started.start()


def test_an_answered_key_frees_what_reached_the_oldest_generation(started):
    started.last_collection -= collector.GAP
    ref = _cycle_in_the_oldest_generation()
    assert started.answered() is True
    assert ref() is None


def test_keys_in_a_quick_stream_collect_at_most_every_gap_seconds(started):
    started.last_collection -= collector.GAP
    _cycle_in_the_oldest_generation()
    assert started.answered() is True
    ref = _cycle_in_the_oldest_generation()
    assert started.answered() is False and ref() is not None  # the next key comes within GAP
    started.last_collection -= collector.GAP
    assert started.answered() is True and ref() is None


def test_a_pause_in_the_input_collects_and_an_idle_screen_does_not(started):
    ref = _cycle_in_the_oldest_generation()
    started.input()
    assert started.tick() is False and ref() is not None  # a key came just now
    started.last_input = time.monotonic() - collector.QUIET
    assert started.tick() is True and ref() is None
    full = gc.get_stats()[2]["collections"]
    assert started.tick() is False  # nothing promoted since: no walk of the oldest generation
    assert gc.get_stats()[2]["collections"] == full
