"""A value read answered with a stand-in value (`--on-read N`), so that the program goes on.

A simulated GPU holds no values. By default a read stops the program (stop.py); with --on-read
N, the device tensor read is taken to hold N everywhere: `.item()` gives N, `.tolist()` a list of
N, `.cpu()` a host tensor full of N, a branch on it goes the way N goes. Each answered read is
logged, one JSON line (where, what was asked, the value) in the capture's reads.jsonl, so that
what the run did after it is known to rest on a stand-in.
"""

from __future__ import annotations

import json
import os

from .shared import contract


def standing_value() -> float | int | None:
    """The number reads are answered with, or None where they stop the program."""
    text = os.environ.get(contract.ENV_ON_READ, "stop")
    if text == "stop":
        return None
    value = float(text)
    return int(value) if value.is_integer() else value


def stand_in(tensor, value):
    """A host tensor of TENSOR's shape and dtype holding VALUE everywhere."""
    import torch
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    with unset_fake_temporarily():
        return torch.full(tuple(tensor.shape), value, dtype=tensor.dtype, device="cpu")


def record(where: str, asked: str, value) -> None:
    """One line for the capture's log of answered reads (a single append: processes never interleave)."""
    log = os.environ.get(contract.ENV_READ_LOG)
    if not log:
        return
    line = json.dumps({"where": where, "asked": asked, "answered": value}) + "\n"
    descriptor = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line.encode())
    finally:
        os.close(descriptor)
