"""A simulated GPU for a Python program: torch sees a CUDA device, Triton compiles for it, nothing runs.

Used by `tritonscope trace --target T` (capture_hook/ loads this package by its path inside the
traced program, with the device described by TRITONSCOPE_SIMULATED_DEVICE) and by anything else
that must run a user's program or import a user's kernel file with no GPU. Only the standard
library, torch and Triton are imported here, never the rest of tritonscope, so it works on the
traced program's path without tritonscope installed.

Entry point: `activate(device)` with a device description (`core/targets.py: simulated_device`
makes it from the targets table), once per process, before the program makes CUDA tensors:

- torch: one global FakeTensorMode (tensors take no memory, keep every shape, stride and dtype,
  and `data_ptr()` is the storage offset times the item size, so 16-byte alignment is as on a GPU),
  and `torch.cuda` answering as the target's GPU (torch_cuda.py);
- Triton: an active driver for the target that compiles and never launches (driver.py);
- torch.compile: the settings and benchmark answers Inductor needs with no GPU (inductor.py);
- reading a value from the device stops the program with one line (stop.py).
"""

from __future__ import annotations

import json
import os

ENVIRONMENT = "TRITONSCOPE_SIMULATED_DEVICE"
_active: list[dict] = []


def activate(device: dict) -> None:
    """Make this process see `device` (a dict: name, backend, arch, capability, warp_size,
    multiprocessor_count, shared_memory_per_block_optin, l2_cache_size, total_memory, ...)."""
    if _active:
        return
    _active.append(device)
    from . import driver, stop, torch_cuda

    torch_cuda.install(device)
    driver.install(device)
    stop.install()
    from . import autotune, inductor

    inductor.install(device)
    autotune.install()


def active_device() -> dict | None:
    """The device activate() was given, or None."""
    return _active[0] if _active else None


def activate_from_environment() -> bool:
    """activate() with the device in TRITONSCOPE_SIMULATED_DEVICE, if set; True if it was."""
    text = os.environ.get(ENVIRONMENT)
    if not text:
        return False
    activate(json.loads(text))
    return True
