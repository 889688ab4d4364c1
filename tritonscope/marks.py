"""`tritonscope.mark("warmup")`: a traced program marks a point of its run, such as the end of its
warmup, so that `check DIR/ --no-compiles-after warmup` and `recompiles DIR/ --after warmup` can tell
what compiled after it. Cheap to import (the standard library and the capture contract only), and it
does nothing unless the program runs under `tritonscope trace`.

A program that cannot import tritonscope sets the environment variable instead, in its own process:
`os.environ["TRITONSCOPE_MARK"] = "warmup"`; the trace records it as it is set, at that line.
"""

from __future__ import annotations

import os

from .capture_hook import tritonscope_contract as contract


def mark(name: str) -> None:
    """Record that the program passed the point NAME ("warmup": its warmup is over). Under
    `tritonscope trace`, one line in the capture's marks.jsonl with the time and the program's line;
    otherwise nothing."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"tritonscope.mark needs a name such as 'warmup', not {name!r}")
    log = os.environ.get(contract.ENV_MARKS)
    if not log:
        return
    from .triton_api.capture import write_mark

    write_mark(log, name.strip(), "mark", depth=2)
