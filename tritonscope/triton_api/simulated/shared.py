"""The contract tritonscope and the traced program share (capture_hook/tritonscope_contract.py),
found from either side: this package's modules read it as `from .shared import contract`."""

from __future__ import annotations

try:  # in tritonscope's own process
    from ...capture_hook import tritonscope_contract as contract
except ImportError:  # loaded by its path in the traced program, whose path has the hook's folder
    import tritonscope_contract as contract  # type: ignore[import-not-found, no-redef]

__all__ = ["contract"]
