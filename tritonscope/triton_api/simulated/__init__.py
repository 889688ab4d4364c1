"""A simulated GPU for a Python program: torch sees a CUDA device, Triton compiles for it, nothing runs.

Used by `tritonscope trace --target T` (capture_hook/ loads this package by its path inside the
traced program, with the device described by TRITONSCOPE_SIMULATED_DEVICE) and by anything else
that must run a user's program or import a user's kernel file with no GPU. Only the standard
library, torch, Triton and the contract beside the hook (capture_hook/tritonscope_contract.py: the
environment's names) are imported here, never the rest of tritonscope, so it works on the traced
program's path without tritonscope installed.

Entry point: `activate(device)` with a device description (`core/targets.py: simulated_device`
makes it from the targets table), once per process, before the program makes CUDA tensors:

- torch: one global FakeTensorMode (tensors take no memory, keep every shape, stride and dtype,
  and `data_ptr()` is the storage offset times the item size, so 16-byte alignment is as on a GPU),
  and `torch.cuda` answering as the target's GPU (torch_cuda.py);
- Triton: an active driver for the target that compiles and never launches (driver.py);
- torch.compile: the settings and benchmark answers Inductor needs with no GPU (inductor.py);
- torch's C++ autograd engine: a CUDA device, streams and events that order nothing, so a
  backward pass and an optimizer step run on the fake tensors (cuda_guard.cpp);
- reading a value from the device stops the program with one line (stop.py).
"""

from __future__ import annotations

import contextlib
import json
import os

from .shared import contract

_active: list[dict] = []


def activate(device: dict) -> None:
    """Make this process see `device` (a dict: name, backend, arch, capability, warp_size,
    multiprocessor_count, shared_memory_per_block_optin, l2_cache_size, total_memory, ...)."""
    if _active:
        return
    _active.append(device)
    from . import driver, stop, torch_cuda

    torch_cuda.install(device)
    torch_cuda.install_allocation()
    backward_runs = torch_cuda.install_engine_hooks()
    driver.install(device)
    stop.install(stop_backward=not backward_runs)
    from . import reads, value_reads

    value_reads.install(stop._library_folders())
    from . import host_install

    if (os.environ.get(contract.ENV_ON_READ) or reads.HOST) == reads.HOST:
        host_install.install()
    import atexit

    atexit.register(host_install.summary)
    if backward_runs:
        from . import autograd_exit, backward_thread

        autograd_exit.install()
        backward_thread.install()
    from . import autotune, fused_optimizers, inductor, sdpa

    fused_optimizers.install()
    sdpa.install(device)
    inductor.install(device)
    autotune.install()
    _quick_exit()


def _quick_exit() -> None:
    """Skip the interpreter's last garbage collections at exit: registered before the program runs,
    this runs after every exit handler the program registers, flushes the files the program left
    open (a file held in a reference cycle is otherwise flushed only by those collections), and
    moves what is still alive out of the collector's reach. A simulated torch.compile run leaves
    about a million objects (torch._dynamo's and Inductor's modules, graphs, fake tensors), and
    collecting them took 0.5 to 1 s after the capture was complete (benchmarks/trace_target.py).
    Python never promised to finalize what is alive at exit; the capture is written unbuffered.
    Not with Triton's nanobind bindings (Triton 3.9): nanobind writes every one of its objects
    still alive at exit to stderr as a leak, dozens of lines after the program's last."""
    import atexit

    atexit.register(_flush_and_freeze)


def _flush_and_freeze() -> None:
    import gc
    import io

    files = (io.BufferedWriter, io.BufferedRandom, io.TextIOWrapper)
    for thing in gc.get_objects():
        if type(thing) in files:  # type(), not isinstance(): a dead weak proxy raises on the latter
            try:
                if not thing.closed:
                    thing.flush()
            except Exception:  # noqa: BLE001, S112 - a broken file: nothing to save
                continue
    if not _bindings_count_leaks():
        gc.freeze()


def _bindings_count_leaks() -> bool:
    """Whether Triton's C++ bindings are nanobind's, which report the objects alive at exit."""
    import sys

    libtriton = sys.modules.get("triton._C.libtriton")
    value = getattr(getattr(libtriton, "ir", None), "value", None)
    return type(value).__module__ == "nanobind"


def activate_from_environment() -> bool:
    """activate() with the device in TRITONSCOPE_SIMULATED_DEVICE, if set; True if it was."""
    text = os.environ.get(contract.ENV_SIMULATED_DEVICE)
    if not text:
        return False
    activate(json.loads(text))
    return True


class _Patches:
    """What installing the simulated GPU changed in torch's namespaces (torch.cuda, torch._C, the
    fake-tensor classes, Tensor's value reads...), so that an import's simulated GPU can be taken
    away afterwards and put back for the next import: name by name, whatever the install touched."""

    def __init__(self, spaces: list) -> None:
        self.before = [(space, dict(vars(space))) for space in spaces]
        self.after: list[tuple[object, dict]] = []

    def taken(self) -> None:
        missing = object()
        self.after = [
            (space, {k: v for k, v in vars(space).items() if before.get(k, missing) is not v})
            for space, before in self.before
        ]

    def undo(self) -> None:
        for (space, before), (_, after) in zip(self.before, self.after, strict=True):
            for name in after:
                if name in before:
                    setattr(space, name, before[name])
                else:
                    delattr(space, name)

    def redo(self) -> None:
        for space, after in self.after:
            for name, value in after.items():
                setattr(space, name, value)


def _torch_namespaces() -> list:
    import torch
    from torch._dynamo import device_interface
    from torch._subclasses import fake_tensor

    spaces = [torch.cuda, torch.cuda.memory, torch._C, torch.Tensor, torch.nn.Module, fake_tensor]
    spaces.append(fake_tensor.FakeTensorMode)
    spaces += [fake_tensor.FakeTensor, device_interface, device_interface.CudaInterface]
    return spaces + ([torch.accelerator] if hasattr(torch, "accelerator") else [])


_patches: list[_Patches] = []


@contextlib.contextmanager
def importing(device: dict):
    """For the length of a kernel file's import in tritonscope's own process: `device` answers the
    file's questions (torch.cuda, Triton's driver), its tensors are fake, and a value read raises
    stop.DeviceValueRead (the import stops there) rather than ending the process. Afterwards every
    answer is taken back (torch.cuda, the fake-tensor mode, Triton's driver), so the command's own
    work sees the machine as it is: no GPU for bench, real CPU tensors for the interpreter. Only
    the CUDA device guard a CPU-only torch gets stays registered (it cannot be taken back, and no
    CPU work uses it). torch.compile's settings are left alone: an import runs no compiled model."""
    import triton  # type: ignore[import-untyped]

    from . import driver, stop, torch_cuda

    if not _patches:
        patches = _Patches(_torch_namespaces())
        torch_cuda.install(device)  # enters the mode
        stop.install()
        stop.raise_on_read()
        from . import value_reads

        value_reads.install(stop._library_folders())
        patches.taken()
        _patches.append(patches)
        _active.append(device)
    else:
        _patches[0].redo()
        torch_cuda._mode[0].__enter__()
    current = _active[0]
    if device != current:  # another target's import in this process (a fit worker takes every target's)
        import torch

        torch_cuda._patch_cuda(device, torch)  # undone with the rest: the names are the first install's
        current = device
    driver.install(current)
    _gpu_checks_forgotten()
    try:
        yield current
    finally:
        torch_cuda._mode[0].__exit__(None, None, None)
        _patches[0].undo()
        triton.runtime.driver.reset_active()
        _gpu_checks_forgotten()


def _gpu_checks_forgotten() -> None:
    """torch's has_triton() keeps its first answer (functools.cache): the plain import's "no GPU" would
    stand under the simulated GPU (torchao's kernels sit under `if has_triton():`), and the simulated
    GPU's "yes" after it. Forgotten as the simulated GPU comes and goes."""
    import sys

    checks = sys.modules.get("torch.utils._triton")
    if checks is not None:
        checks.has_triton.cache_clear()
