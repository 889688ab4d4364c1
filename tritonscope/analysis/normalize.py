"""Preparing a stage's text for the views and for diffs, through the stage registry.

A listing is a list of (line number in the stage, text). Keeping the original numbers
lets a normalized view still point into the stage's file and the line map.
"""

from __future__ import annotations

import re

from ..core.stages import STAGES, Listing, Stage


def listing(text: str) -> Listing:
    return list(enumerate(text.splitlines(), start=1))


def strip_locations(stage: Stage, lines: Listing) -> Listing:
    """Drops location noise: MLIR `loc(...)` and `#loc` aliases, LLVM `!dbg` and its metadata,
    `.loc`/`.file` directives and debug sections in PTX and AMDGCN, nvdisasm's `//## File` lines."""
    return STAGES[stage].strip(lines)


def shown(stage: Stage, text: str, keep_loc: bool) -> Listing:
    """A stage as the views show it: numbered lines, location noise dropped unless asked to keep it."""
    lines = listing(text)
    return lines if keep_loc else strip_locations(stage, lines)


SQUEEZED = (Stage.PTX, Stage.SASS, Stage.AMDGCN)  # assembly: its columns padded for 80-column listings
_RUN = re.compile(r"\s{3,}")


def compacted(stage: Stage, lines: Listing) -> Listing:
    """A listing for a pane a third of the screen wide (the explorer's): tabs expanded, the indentation
    all lines share taken off and, in assembly, the runs of spaces that pad its columns cut to two,
    so an instruction is seen beside its address rather than past the pane's edge."""
    texts = [text.expandtabs(8) for _, text in lines]
    indent = min((len(t) - len(t.lstrip()) for t in texts if t.strip()), default=0)
    out = []
    for (number, _), text in zip(lines, texts, strict=True):
        text = text[indent:]
        if stage in SQUEEZED:
            lead = min(len(text) - len(text.lstrip()), 2)
            text = " " * lead + _RUN.sub("  ", text.lstrip())
        out.append((number, text))
    return out


def comparable(stage: Stage, text: str) -> tuple[str, ...]:
    """A stage as diffs compare it: no locations, names canonical, no trailing blanks."""
    lines = STAGES[stage].rename(strip_locations(stage, listing(text)))
    return tuple(line.rstrip() for _, line in lines)


def only(lines: Listing, wanted: set[int]) -> Listing:
    return [(n, t) for n, t in lines if n in wanted]
