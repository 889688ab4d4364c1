"""The fused optimizer steps torch gives no meta kernel (SGD and Adagrad with fused=True): a fake
tensor cannot run them, so `optimizer.step()` failed inside torch. On a GPU they are CUDA kernels of
torch's own, not Triton, so there is nothing of theirs to capture; in place, they change no shape,
stride or dtype. Each is given a meta kernel that does nothing, on torch releases that lack one."""

from __future__ import annotations

_STEPS = ("_fused_sgd_", "_fused_adagrad_")
_libraries: list = []  # the registrations last as long as their Library object


def _nothing(*args, **kwargs) -> None:
    return None


def install() -> None:
    import torch

    library = torch.library.Library("aten", "IMPL")
    for name in _STEPS:
        packet = getattr(torch.ops.aten, name, None)
        if packet is None or torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{name}", "Meta"):
            continue
        for overload in packet.overloads():
            qualified = name if overload == "default" else f"{name}.{overload}"
            library.impl(qualified, _nothing, "Meta")
    _libraries.append(library)
