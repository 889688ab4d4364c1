"""The name of every kind of finding: what `--json`, `check`'s budgets and the captures' comparison
key on. Kept apart from the detectors so that any module (the remarks, check's figures) can name a
kind without importing the detector that finds it."""

from __future__ import annotations

# Global memory accesses (access.py)
NARROW = "narrow-global-access"
UNCOALESCED = "uncoalesced-access"
# Registers, shared memory, conversions, pipelining (memory.py)
SPILLS = "spills"
OCCUPANCY = "occupancy"
SHARED_LIMIT = "shared-memory-over-limit"
CONVERSION = "layout-conversion"
NOT_PIPELINED = "loop-not-pipelined"
# Atomics fenced by their default ordering (atomics.py)
ATOMIC_FENCES = "atomic-fenced"
# Matrix instructions (matrix.py)
MATRIX = "dot-without-best-matrix-instructions"
# What the target's best instructions would do (target.py)
TMA = "tma-candidate"
WGMMA_WAIT = "wgmma-waited-at-issue"
WGMMA_SERIALIZED = "wgmma-serialized"
WARP_SPECIALIZE = "warp-specialize-not-applied"
TCGEN05 = "dot-not-on-tcgen05"
SHARED_BUFFERS = "shared-memory-by-buffer"
LDS_BYPASS = "lds-bypass-candidate"
# What a Gluon kernel's author (or warp specialization) controls (gluon.py)
BANK_CONFLICTS = "bank-conflicts"
PARTITION = "warp-partition"
# An MLIR remark (or warning) of Triton's compiler that no other finding explains (remarks.py)
REMARK = "remark"
