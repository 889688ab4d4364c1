"""Kernels behind torch.library.triton_op / wrap_triton, called eagerly, compile as on a GPU.

On a GPU an eager call of a triton_op runs its body with wrap_triton switched off, so the kernel
is launched directly. On the simulated GPU every tensor is fake, so torch sends the call to the
op's fake implementation instead, where wrap_triton records a graph node and launches nothing.
While the program's own fake mode (not one of torch.compile's) is the active one, wrap_triton
is switched off here too: the kernel compiles and its launch is recorded, as on the GPU.
"""

from __future__ import annotations


def install(program_mode) -> None:
    import torch

    try:
        from torch._library import triton as library_triton
    except ImportError:
        return
    original = library_triton.is_wrap_triton_enabled

    def is_wrap_triton_enabled() -> bool:
        active = torch._C._get_dispatch_mode(torch._C._TorchDispatchModeKey.FAKE)
        if active is program_mode:
            return False
        return original()

    library_triton.is_wrap_triton_enabled = is_wrap_triton_enabled
