"""`trace --target --autotune RULE`: which candidate an autotuned kernel launches on a simulated GPU.

With no GPU the candidates cannot be timed. Every one is still compiled, as on a GPU; the rule
says which one the autotuner is told is the fastest, so that it keeps and launches that one.
The traced program gets the rule as JSON (`as_environment`, in the variable the capture contract
names: capture_hook/tritonscope_contract.py); triton_api/simulated/autotune.py applies it and writes,
per autotuned kernel, the rule, the candidate chosen and whether the rule found its candidate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

FORMS = "first, last, an index N (from 0) or KEY=VALUE,... (e.g. BLOCK_M=128,num_warps=8)"


@dataclass(frozen=True)
class AutotuneRule:
    """first, last, the candidate at an index, or the first candidate with the given settings."""

    kind: Literal["first", "last", "index", "config"] = "first"
    index: int = 0
    settings: tuple[tuple[str, str], ...] = ()  # as the autotuner prints a config: `BLOCK_M: 128`
    given: str = "first"  # as the user wrote it

    def as_environment(self) -> str:
        rule = {"kind": self.kind, "index": self.index, "settings": dict(self.settings), "given": self.given}
        return json.dumps(rule)
