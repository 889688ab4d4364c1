"""Which attention kernel scaled_dot_product_attention picks on the simulated GPU: torch's own rules.

On a GPU, torch's C++ code (sdp_utils.cpp, `select_sdp_backend`) picks cuDNN, flash, memory-
efficient or math attention from the inputs, the device's capability and the cuDNN release torch
ships; torch.compile then lowers the pick (a math pick decomposes into matmuls and a softmax that
Inductor compiles; the fused ones are library kernels). With no GPU that code cannot run (a CPU
build has none; a CUDA build's asks the CUDA runtime), so its rules for dense NVIDIA inputs are
written here and answer `aten::_fused_sdp_choice` for tensors on the simulated device.

cuDNN comes first when torch's CUDA build ships cuDNN newer than 9.15 and the GPU is sm90 or sm10x
(torch 2.11 and later); the cuDNN release is the installed one on a CUDA build, else the one
torch's CUDA build of that release depends on (build_facts.py).

cuDNN's largest head dimension (`check_cudnn_tensor_shapes`) changed between releases: up to torch
2.12, 256 on sm90 (9.0 only) with cuDNN 9.10 or newer (pytorch#161210), else 128 (192 for a 192/128
pair on sm10x with cuDNN 9.11); from torch 2.13, 256 on sm90 and sm10x only with cuDNN newer than
9.22 and a cuDNN frontend of 1.24 or newer (pytorch#185553, in 2.13's build), where a backward also
needs head dimensions cuDNN differentiates (`check_cudnn_d256_bprop_head_dim`).
"""

from __future__ import annotations

from .build_facts import cudnn_version

MATH, FLASH, EFFICIENT, CUDNN = 0, 1, 2, 3  # torch._C._SDPBackend's values
DEFAULT_ORDER = [FLASH, EFFICIENT, MATH, CUDNN, 4]
_HALF = ("torch.float16", "torch.bfloat16")


def _order(torch, capability: tuple[int, int], cudnn: int) -> list[int]:
    order = list(torch._C._get_sdp_priority_order()) if hasattr(torch._C, "_get_sdp_priority_order") else []
    order = order or DEFAULT_ORDER
    import os

    prefer_cudnn = os.environ.get("TORCH_CUDNN_SDPA_DEPRIORITIZED", "0") in ("0", "")
    if order == DEFAULT_ORDER and prefer_cudnn and cudnn > 91500 and capability[0] in (9, 10):
        return [CUDNN, FLASH, EFFICIENT, MATH]
    return order


def _dense(q, k, v) -> bool:
    if not (q.dim() == k.dim() == v.dim() == 4):
        return False
    if not (q.shape[0] == k.shape[0] == v.shape[0]) or 0 in (q.shape[-2], k.shape[-2]):
        return False
    if k.shape[1] != v.shape[1] or q.shape[1] % k.shape[1]:
        return False
    return all(t.stride(-1) == 1 or t.shape[-1] == 1 for t in (q, k, v))


def _flash(torch, q, k, v, mask, causal, capability) -> bool:
    if not torch.backends.cuda.flash_sdp_enabled() or mask is not None or not (8, 0) <= capability <= (12, 1):
        return False
    if not q.shape[-1] == k.shape[-1] == v.shape[-1] <= 256 or str(q.dtype) not in _HALF:
        return False
    return not (causal and q.shape[-2] != k.shape[-2])


def _efficient(torch, q, k, v, capability) -> bool:
    if not torch.backends.cuda.mem_efficient_sdp_enabled() or not (5, 0) <= capability <= (12, 1):
        return False
    half = str(q.dtype) in _HALF
    align = (8 if half else 4) if capability[0] >= 8 else (8 if half else 1)
    if q.shape[-1] != k.shape[-1] or q.shape[-1] % align or v.shape[-1] % align:
        return False
    if capability[0] >= 8 and any(
        t.storage_offset() * t.element_size() % (align * t.element_size()) for t in (q, k, v)
    ):
        return False
    dtypes = (
        ("torch.float16", "torch.float32", "torch.bfloat16")
        if capability[0] >= 8
        else ("torch.float16", "torch.float32")
    )
    return str(q.dtype) in dtypes


def _cudnn(torch, q, k, v, dropout, capability, cudnn: int) -> bool:
    if not torch.backends.cuda.cudnn_sdp_enabled() or not (8, 0) <= capability <= (12, 1):
        return False
    if str(q.dtype) not in _HALF or dropout * 16 != int(dropout * 16):
        return False
    if max(q.shape[0], q.shape[1]) > 65535 or k.shape[-2] == 1 or (dropout and q.shape[-2] == 1):
        return False
    d_qk, d_v = q.shape[-1], v.shape[-1]
    limit = cudnn_head_dim_limit(_release(torch), capability, cudnn, d_qk, d_v)
    if not (d_qk <= limit and d_v <= limit and d_qk % 8 == 0 and d_v % 8 == 0):
        return False
    return _cudnn_backward_head_dims(torch, q, k, v, capability, cudnn)


def _release(torch) -> tuple[int, int]:
    return tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])  # type: ignore[return-value]


def _d256(capability, cudnn: int) -> bool:
    """Whether torch 2.13 or later lets cuDNN take head dimension 256 on this GPU."""
    sm90_or_sm10x = tuple(capability) == (9, 0) or capability[0] == 10
    unsupported_sm107 = tuple(capability) == (10, 7) and cudnn <= 92500
    return sm90_or_sm10x and not unsupported_sm107 and cudnn > 92200


def cudnn_head_dim_limit(release: tuple[int, int], capability, cudnn: int, d_qk: int, d_v: int) -> int:
    """check_cudnn_tensor_shapes's head_dim_limit, as torch RELEASE computes it."""
    if release < (2, 13):
        if cudnn >= 91000 and tuple(capability) == (9, 0):
            return 256
        return 192 if cudnn >= 91100 and capability[0] == 10 and (d_qk, d_v) == (192, 128) else 128
    if _d256(capability, cudnn):
        return 256
    sm90_or_sm10x = tuple(capability) == (9, 0) or capability[0] == 10
    return 192 if sm90_or_sm10x and cudnn >= 91100 and (d_qk, d_v) == (192, 128) else 128


def _cudnn_backward_head_dims(torch, q, k, v, capability, cudnn: int) -> bool:
    """torch 2.13's check_cudnn_d256_bprop_head_dim: where head dimension 256 is allowed, inputs that
    require grad need head dimensions cuDNN's backward takes."""
    needs_grad = torch.is_grad_enabled() and any(t.requires_grad for t in (q, k, v))
    if _release(torch) < (2, 13) or not needs_grad or not _d256(capability, cudnn):
        return True
    return (q.shape[-1], v.shape[-1]) in ((192, 128), (256, 256)) or max(q.shape[-1], v.shape[-1]) <= 128


def choose(torch, capability, q, k, v, mask=None, dropout=0.0, causal=False) -> int:
    """The backend torch picks on a GPU of CAPABILITY for these inputs (dense, NVIDIA)."""
    if not _dense(q, k, v):
        return MATH
    cudnn = cudnn_version(torch)
    for backend in _order(torch, tuple(capability), cudnn):
        if backend == CUDNN and _cudnn(torch, q, k, v, dropout, tuple(capability), cudnn):
            return CUDNN
        if backend == FLASH and _flash(torch, q, k, v, mask, causal, tuple(capability)):
            return FLASH
        if backend == EFFICIENT and _efficient(torch, q, k, v, tuple(capability)):
            return EFFICIENT
        if backend == MATH and torch.backends.cuda.math_sdp_enabled():
            return MATH
    return MATH


_libraries: list = []


def install(device: dict) -> None:
    """Answer `aten::_fused_sdp_choice` for tensors on the simulated device (its Meta kernel, which
    every fake tensor mode runs), as torch does on the target GPU."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor

    if device["backend"] != "cuda":
        return

    def fused_sdp_choice(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False):
        if not (isinstance(q, FakeTensor) and q.fake_device.type == "cuda"):
            return MATH  # a tensor truly on the meta device, as torch's own Meta kernel answers
        return choose(torch, device["capability"], q, k, v, attn_mask, dropout_p, is_causal)

    library = torch.library.Library("aten", "IMPL")
    library.impl("_fused_sdp_choice", fused_sdp_choice, "Meta")
    _libraries.append(library)
