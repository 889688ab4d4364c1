"""Hostile inputs for the parser property tests: large texts built from a repeated motif, and a time bound.

Super-linear parsing shows as a hang on such input (a regex that backtracks, a scan restarted at
every position), so each parser must finish 100 KB of it well inside a generous bound. The bound
is structural, not a timing comparison: linear code takes milliseconds here, quadratic code minutes.
"""

from __future__ import annotations

import contextlib
import signal

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

SIZE = 100_000
SECONDS = 10

# Few examples (each is 100 KB), no per-example deadline: the alarm is the bound.
large = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextlib.contextmanager
def within(seconds: int = SECONDS):
    """Fails the test if the block runs longer than `seconds` (SIGALRM; the tests run in the main thread)."""

    def expire(signum, frame):
        raise AssertionError(f"did not finish within {seconds} s: super-linear on this input")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def repeated(motif: str, size: int = SIZE) -> str:
    """`motif` repeated to about `size` characters."""
    return motif * max(1, size // max(1, len(motif)))


def motifs(fragments: list[str], max_size: int = 6) -> st.SearchStrategy[str]:
    """A short text made of the given fragments (the pieces a parser's patterns care about)."""
    return st.lists(st.sampled_from(fragments), min_size=1, max_size=max_size).map("".join)


def is_subsequence(part: str, whole: str) -> bool:
    """Whether `part` is `whole` with some characters removed."""
    remaining = iter(whole)
    return all(char in remaining for char in part)
