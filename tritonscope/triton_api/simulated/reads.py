"""How a read of a device value is answered (`--values`), and its line in the capture's reads.jsonl.

- `host` (the default): the value the program would have had on the GPU, computed on the host from
  the operators that made it (host_values.py); a read the host cannot compute (a Triton kernel of the
  program's own wrote the tensor) or that would take more host memory than the budget
  (`--host-memory`) stops the program there, with its line and the reason;
- `stop`: the program stops at its first read;
- a number N (`zero` is 0): the device tensor read is taken to hold N everywhere.

Each answered read is one JSON line: where, what was asked, the mode that answered it and the value
(a number, or a short list; a larger result's shape and dtype), so that what the run did after it is
known to rest on the host's arithmetic or on a stand-in.
"""

from __future__ import annotations

import json
import os

from .shared import contract

HOST = "host"
SHOWN_ITEMS = 16  # a read's value is written out up to this many elements
_reading: list[bool] = []  # inside an answer: the reads it makes itself are not the program's
HOST_READY: list[bool] = []  # set where the operators are logged (host_values.install)


def mode() -> str | float | int:
    """ "host", "stop", or the number reads are answered with ("host" only where the operators are
    logged: a kernel file imported in tritonscope's own process stops at its reads)."""
    text = os.environ.get(contract.ENV_ON_READ) or HOST
    if text == HOST:
        return HOST if HOST_READY else "stop"
    if text == "stop":
        return text
    value = float(text)
    return int(value) if value.is_integer() else value


def standing_value() -> float | int | None:
    """The number reads are answered with, or None where they are not answered with a number."""
    given = mode()
    return None if isinstance(given, str) else given


def stand_in(tensor, value):
    """A host tensor of TENSOR's shape and dtype holding VALUE everywhere."""
    import torch
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    with unset_fake_temporarily():
        return torch.full(tuple(tensor.shape), value, dtype=tensor.dtype, device="cpu")


class Unanswered(Exception):
    """The host could not answer the read: why, said in the stop's line."""


def host_value(tensor):
    """TENSOR's value on the host (host_values.py); Unanswered with the reason where it has none."""
    from . import budget, host_values

    try:
        with budget.watched():
            return host_values.LOG.value(tensor).detach()
    except host_values.Unknown as exc:
        raise Unanswered(f"the host cannot compute it: {exc}") from None
    except budget.OverBudget as exc:
        raise Unanswered(str(exc)) from None


def answers(tensors: list) -> tuple[list, str | float | int]:
    """Host tensors standing for TENSORS (device tensors) under the run's mode, and that mode."""
    given = mode()
    if given == HOST:
        _reading.append(True)
        try:
            return [host_value(t) for t in tensors], given
        finally:
            _reading.pop()
    return [stand_in(t, given) for t in tensors], given


def inside_an_answer() -> bool:
    return bool(_reading)


def shown(value):
    """A read's value as plain JSON: a number, a short list, else its shape and dtype."""
    import torch

    if not isinstance(value, torch.Tensor):
        return value if isinstance(value, (bool, int, float, str, type(None))) else repr(value)[:80]
    if value.numel() <= SHOWN_ITEMS:
        listed = value.tolist()
        return [_plain(v) for v in listed] if isinstance(listed, list) else _plain(listed)
    return {"shape": list(value.shape), "dtype": str(value.dtype).replace("torch.", "")}


def _plain(value):
    if isinstance(value, float) and value != value:
        return "nan"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return str(value)
    return value


def made(tensor) -> dict:
    """What the log says of an operator's result whose shape the values set: its shape and dtype."""
    return {"shape": list(tensor.shape), "dtype": str(tensor.dtype).removeprefix("torch.")}


def record(where: str, asked: str, answered, given=None, made=None) -> None:
    """One line for the capture's log of answered reads (a single append: processes never interleave);
    `made`: the result of an operator whose shape depends on the values read."""
    log = os.environ.get(contract.ENV_READ_LOG)
    if not log:
        return
    from . import near_ties

    given = mode() if given is None else given
    record = {"where": where, "asked": asked, "mode": given, "answered": answered}
    if made is not None:
        record["made"] = made
    ties = near_ties.taken()
    if ties:
        record["near_ties"] = ties[:8] + ([{"more": len(ties) - 8}] if len(ties) > 8 else [])
    line = json.dumps(record) + "\n"
    descriptor = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line.encode())
    finally:
        os.close(descriptor)
