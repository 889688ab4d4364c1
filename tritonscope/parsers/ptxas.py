"""ptxas's own report (`ptxas -v`): the stack frame and the bytes it spills per thread, and the
performance losses it announces (on sm90: wgmma it had to serialize, and why).

ptxas info    : Function properties for matmul_kernel
    760 bytes stack frame, 1012 bytes spill stores, 964 bytes spill loads
ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized due to
    non wgmma instructions reading accumulator registers of  a wgmma between start and end of the
    pipeline stage in the function 'attention_kernel'      (one line in ptxas's output)
"""

from __future__ import annotations

import re

_PROPERTIES = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", re.MULTILINE)


def spill_bytes(text: str) -> tuple[int, int] | None:
    """(spill store bytes, spill load bytes) per thread of the first function reported; None if absent."""
    match = _PROPERTIES.search(text)
    return (int(match.group(2)), int(match.group(3))) if match else None


_LOSS = re.compile(r"Potential Performance Loss: (.*?)(?: (?:in|for) the function '[^']*')?\s*$", re.MULTILINE)


def performance_losses(text: str) -> tuple[str, ...]:
    """ptxas's "Potential Performance Loss" announcements, each without the function's name, spaces
    squeezed (ptxas writes "of  a wgmma")."""
    return tuple(dict.fromkeys(" ".join(m.group(1).split()) for m in _LOSS.finditer(text)))
