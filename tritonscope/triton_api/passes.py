"""What `passes` needs from Triton: its IR dumps on, and the last MLIR module kept.

MLIR_ENABLE_DUMP makes Triton print the IR before every MLIR pass on the C-level stderr;
the module after the last pass (the LLVM dialect that becomes LLVM IR) is never printed,
so a stage-inspection hook writes it after the dumps, under FINAL_HEADER.
"""

from __future__ import annotations

import os

from ..parsers.pass_dump import FINAL_HEADER
from .shims import STAGE_HOOKS

DUMP_ENVIRONMENT = {"MLIR_ENABLE_DUMP": "1", "TRITON_ALWAYS_COMPILE": "1"}
LLVM_DUMP_ENVIRONMENT = {"LLVM_IR_ENABLE_DUMP": "1"}
# `passes --time`: MLIR's and LLVM's own timers, in a compile of its own (triton_api/timing.py).
TIMING_ENVIRONMENT = {"MLIR_ENABLE_TIMING": "1", "LLVM_ENABLE_TIMING": "1", "TRITON_ALWAYS_COMPILE": "1"}


def keep_final_module() -> None:
    """Writes the final MLIR module to file descriptor 2 once the llir stage has run its passes,
    through the compiler's stage hook (since 3.6; older releases have no hook: no final module)."""

    def hook(stages):
        make_llir = stages["llir"]

        def llir(src, metadata):
            out = make_llir(src, metadata)  # runs the last MLIR passes on `src`, in place
            os.write(2, f"{FINAL_HEADER}\n{src}\n".encode())
            return out

        stages["llir"] = llir

    if hook not in STAGE_HOOKS:
        STAGE_HOOKS.append(hook)
