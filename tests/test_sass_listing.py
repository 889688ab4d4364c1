"""nvdisasm's listing read into instructions (parsers/sass_listing.py): the operands split at the
commas outside brackets, by a shortcut where each comma splits, held to the character scan."""

from __future__ import annotations

from conftest import compiled
from hostile import motifs
from hypothesis import given, settings

from tritonscope.core.stages import Stage
from tritonscope.parsers import sass_listing


def _scanned(text: str) -> list[str]:
    """The reference: one character at a time, a comma splitting only outside every bracket."""
    parts, current, depth = [], [], 0
    for char in text:
        depth += (char in "[{(") - (char in "]})")
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    tail = "".join(current).strip()
    return [*parts, tail] if tail or parts else []


@settings(max_examples=3000, deadline=None)
@given(text=motifs(["R12", " ", ",", "[", "]", "{", "}", "(", ")", "desc", "UR4", ".64", "+0x800", "`"], max_size=14))
def test_the_operands_shortcut_agrees_with_the_scan(text):
    assert sass_listing._operands(text) == _scanned(text)


def test_operands_of_real_listings_are_the_scans():
    """Every instruction of real listings (sm90's warp-group matrix code, sm120's control fields)."""
    for target in ("sm90", "sm120"):
        listing = sass_listing.parse(compiled("sample:matmul", target).stages[Stage.SASS])
        assert len(listing.instructions) > 100
        assert ["desc[UR4][R2.64]", "R0"] == sass_listing._operands("desc[UR4][R2.64], R0")
        for step in listing.instructions:
            assert all(not o.startswith(("&", "?")) for o in step.operands)  # the control fields are not operands
            assert list(step.operands) == _scanned(", ".join(step.operands))
