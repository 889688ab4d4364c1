"""Reads nvdisasm's register life ranges (`nvdisasm -c --print-life-ranges`): registers live per instruction.

    /*0090*/    IADD3 R22, R22, c[0x0][0x180], RZ ;    // |   8 : :  x  ...  |  2 ...  |  1 ...

After each instruction, the first `|` column counts the general registers (GPR) live there;
predicate and uniform registers follow in their own columns. That listing carries no line
information, so it is joined to the line-annotated one by the instructions' addresses.
"""

from __future__ import annotations

import re

_LIVE = re.compile(r"^\s*/\*([0-9a-fA-F]{1,16})\*/[^|]*//\s*\|\s*(\d{1,6})\b")
_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-fA-F]{1,16})\*/([^;]*);")
_ADDRESS = re.compile(r"^\s*/\*([0-9a-fA-F]{1,16})\*/")


def parse(text: str) -> dict[int, int]:
    """{instruction address: general registers live after it}."""
    live = {}
    for line in text.splitlines():
        match = _LIVE.match(line)
        if match:
            live[int(match.group(1), 16)] = int(match.group(2))
    return live


def instructions(text: str) -> list[tuple[int, str]]:
    """(address, instruction) of each instruction in a listing, its spacing and comments dropped, but
    for the NOPs that pad the code's end (the life-range listing may leave them out)."""
    found = []
    for line in text.splitlines():
        match = _INSTRUCTION.match(line)
        if match:
            found.append((int(match.group(1), 16), " ".join(match.group(2).split())))
    while found and found[-1][1] == "NOP":
        found.pop()
    return found


def by_listing_line(sass: str, live: dict[int, int]) -> dict[int, int]:
    """The same counts keyed by the line (1-based) of each instruction in another listing of the binary."""
    found = {}
    for number, line in enumerate(sass.splitlines(), start=1):
        match = _ADDRESS.match(line)
        if match and int(match.group(1), 16) in live:
            found[number] = live[int(match.group(1), 16)]
    return found
