"""Why a kernel is slow: findings, each naming its Python line, the evidence in the IR or machine
code, the cause, and what to try.

Read from a compilation and what the app read beside it (the `Kernel`: TTGIR read once, the cost
per line, the registers live per line, the moves through shared memory), so every finding is the
compiler's own output explained. A finding may carry a `what_if`: the change to the request that its
suggestion amounts to; `tritonscope explain` compiles it and says what it gives.

- kinds.py: every kind's name; model.py: `Finding`, `WhatIf`, `Cause`; kernel.py: `Kernel`.
- One module of detectors per subject: access.py (global accesses), memory.py (registers, shared
  memory, conversions, pipelining), matrix.py, target.py (the target's best instructions), gluon.py
  (what a Gluon kernel's author controls), remarks.py (MLIR's remarks given to the findings).
- detectors.py: the one table of detectors and `find(kernel)`, which every command calls.
"""

from __future__ import annotations

from .access import line_widths, narrowest
from .detectors import DETECTORS, Detector, Found, find
from .kernel import Input, Kernel
from .kinds import (
    ATOMIC_FENCES,
    BANK_CONFLICTS,
    CONVERSION,
    LDS_BYPASS,
    MATRIX,
    NARROW,
    NOT_PIPELINED,
    OCCUPANCY,
    PARTITION,
    REMARK,
    SHARED_BUFFERS,
    SHARED_LIMIT,
    SPILLS,
    TCGEN05,
    TMA,
    UNCOALESCED,
    WARP_SPECIALIZE,
    WGMMA_SERIALIZED,
    WGMMA_WAIT,
)
from .memory import shared_limit
from .model import Cause, Finding, WhatIf, what_if_flags

__all__ = [
    "ATOMIC_FENCES",
    "BANK_CONFLICTS",
    "CONVERSION",
    "DETECTORS",
    "LDS_BYPASS",
    "MATRIX",
    "NARROW",
    "NOT_PIPELINED",
    "OCCUPANCY",
    "PARTITION",
    "REMARK",
    "SHARED_BUFFERS",
    "SHARED_LIMIT",
    "SPILLS",
    "TCGEN05",
    "TMA",
    "UNCOALESCED",
    "WARP_SPECIALIZE",
    "WGMMA_SERIALIZED",
    "WGMMA_WAIT",
    "Cause",
    "Detector",
    "Finding",
    "Found",
    "Input",
    "Kernel",
    "WhatIf",
    "find",
    "line_widths",
    "narrowest",
    "shared_limit",
    "what_if_flags",
]
