"""One concrete fix per cause of a recompile (placeholder until fixes are written)."""

from __future__ import annotations


def with_fixes(histories, timeline, prove):
    return histories
