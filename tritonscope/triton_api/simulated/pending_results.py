"""The results a compiled graph's host run made for its operators whose results are shaped by values
(compiled_values.py), waiting for the compiled code's own calls of them: `nonzero` (value_reads.py),
and `buf0.item()` for an unbacked size (stop.py), in the order the host run made them."""

from __future__ import annotations

PENDING: list = []  # (operator name, host result) of the graph being run, in the order it made them


def pending(name: str):
    """The host result the running graph's host run made for operator NAME, next in order (taken), or
    None: the compiled code's own call of it (`nonzero`, or `buf0.item()`: `_local_scalar_dense`)."""
    for index, (made, result) in enumerate(PENDING):
        if made == name:
            del PENDING[index]
            return result
    return None
