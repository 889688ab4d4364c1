"""ptxas's own report (`ptxas -v`): the stack frame and the bytes it spills per thread.

ptxas info    : Function properties for matmul_kernel
    760 bytes stack frame, 1012 bytes spill stores, 964 bytes spill loads
"""

from __future__ import annotations

import re

_PROPERTIES = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", re.MULTILINE)


def spill_bytes(text: str) -> tuple[int, int] | None:
    """(spill store bytes, spill load bytes) per thread of the first function reported; None if absent."""
    match = _PROPERTIES.search(text)
    return (int(match.group(2)), int(match.group(3))) if match else None
