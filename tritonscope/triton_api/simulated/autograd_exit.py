"""A program that ran a backward pass on the simulated GPU ends without aborting.

torch's autograd engine runs a CUDA backward on its own worker thread, and each backward pass keeps
the thread-local state it was started with, the program's FakeTensorMode (a Python object) among
it. When the worker holds the last reference, it drops it just after the pass, and must take the
GIL to do so; if the program ends first, the worker asks for the GIL while Python is shutting down,
Python ends the thread from inside a C++ destructor, and the process aborts ("terminate called
without an active exception", exit 134: 5 runs of 6 of a program ending with a double backward, 1
of 6 of a one-layer backward, before this). On a real GPU the state holds no Python object. So at
exit, after the program's own exit handlers, the GIL is let go for a moment, once, if a backward
pass ran: the worker takes it and lets go of its reference first.
"""

from __future__ import annotations

import atexit
import time

_ran: list[bool] = []
SETTLE_S = 0.05  # the worker is already waiting for the GIL: it wakes within microseconds


def _settle() -> None:
    if _ran:
        time.sleep(SETTLE_S)


def install() -> None:
    from torch.autograd import graph

    original = getattr(graph, "_engine_run_backward", None)
    if original is None:
        return

    def run_backward(*args, **kwargs):
        if not _ran:
            _ran.append(True)
        return original(*args, **kwargs)

    run_backward.__wrapped__ = original  # type: ignore[attr-defined]
    graph._engine_run_backward = run_backward
    import torch

    torch.autograd._engine_run_backward = run_backward
    atexit.register(_settle)  # registered first, so it runs after the program's own handlers
