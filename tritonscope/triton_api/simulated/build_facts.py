"""Facts of torch's own CUDA build that the simulated GPU answers with, written once.

A CUDA build of torch carries the cuDNN it was released with (its wheel requires one
nvidia-cudnn release), and that release decides which attention and convolution kernels torch
picks on a GPU (sdpa.py, cuda_guard.cpp's hooks). A CUDA build reports the cuDNN installed beside
it; a CPU build has none, so it answers with the cuDNN of the CUDA build of the same torch release:
the newest release listed here at or below the running one.
"""

from __future__ import annotations

import importlib.metadata

# torch release -> cuDNN of its CUDA build (its wheel's nvidia-cudnn requirement), as
# major * 10000 + minor * 100 + patch (torch.backends.cudnn.version()'s form).
CUDNN_OF_TORCH = {(2, 11): 91900, (2, 14): 92400}


def cudnn_version(torch) -> int:
    for name in ("nvidia-cudnn-cu13", "nvidia-cudnn-cu12"):
        try:
            major, minor, patch = (int(p) for p in importlib.metadata.version(name).split(".")[:3])
        except (importlib.metadata.PackageNotFoundError, ValueError):
            continue
        return major * 10000 + minor * 100 + patch
    release = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    known = [r for r in sorted(CUDNN_OF_TORCH) if r <= release]
    return CUDNN_OF_TORCH[known[-1] if known else min(CUDNN_OF_TORCH)]
