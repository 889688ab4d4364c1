"""What every corpus program shares. Each program runs its model on `cuda` under torch.compile, as
on the H100 (tests/programs/capture_h100.py traces them there); `TRITONSCOPE_CORPUS_DEVICE=cpu` runs
it on the CPU instead, eagerly (torch.compile left out, Triton kernels on Triton's interpreter), to
check the model code where there is no GPU. Weights are random, from small configs, seeded; nothing
is downloaded. Import this module before Triton: the interpreter is chosen when Triton is imported.
"""

from __future__ import annotations

import importlib.util
import os
import sys

DEVICE = os.environ.get("TRITONSCOPE_CORPUS_DEVICE", "cuda")
ON_GPU = DEVICE == "cuda"
if not ON_GPU:
    os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402  (after the interpreter is chosen)

_torchvision_operators = None  # kept alive: a Library's operators go when it is collected


def _torchvision_importable() -> None:
    """Lets torchvision import beside torch's CPU build (timm imports it, and transformers where it
    is installed: BertModel fails to import with it). PyPI's torchvision is a CUDA build: beside a
    CPU torch its compiled operators do not load, and 0.28's import then fails registering a fake of
    one (`operator torchvision::nms does not exist`). The corpus's models call none of them, so where
    that happens their schemas are declared and the import is tried again; where torchvision imports
    (the H100's, a matching build) this only imports it."""
    global _torchvision_operators
    if importlib.util.find_spec("torchvision") is None:
        return
    try:
        import torchvision  # noqa: F401
    except RuntimeError as exc:
        if "torchvision::nms does not exist" not in str(exc):
            raise
        _torchvision_operators = torch.library.Library("torchvision", "FRAGMENT")
        for name in ("nms", "qnms"):  # the two 0.28 registers a fake of without checking they loaded
            _torchvision_operators.define(f"{name}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        for module in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
            del sys.modules[module]
        import torchvision  # noqa: F401


_torchvision_importable()


def compiled(fn, **options):
    """torch.compile(fn, **options) on the GPU; fn itself on the CPU check."""
    return torch.compile(fn, **options) if ON_GPU else fn


def _interpreted_bench(kernel_call, quantiles=None, **options):
    """Triton's interpreter has no benchmarker: each candidate runs once and all tie."""
    kernel_call()
    return [1.0] * len(quantiles) if quantiles else 1.0


# `@triton.autotune(..., do_bench=corpus.AUTOTUNE_BENCH)`: the GPU's own benchmarker on the GPU.
AUTOTUNE_BENCH = None if ON_GPU else _interpreted_bench


def start() -> None:
    torch.manual_seed(0)


def finish(name: str) -> None:
    if ON_GPU:
        torch.cuda.synchronize()
    print(f"corpus {name}: done")


def padded_batch(vocab: int, lengths: list[int], seq: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids and an attention mask of 1s then 0s (right padding): one row per length."""
    ids = torch.randint(1, vocab, (len(lengths), seq), device=DEVICE)
    mask = torch.zeros(len(lengths), seq, dtype=torch.long, device=DEVICE)
    for row, length in enumerate(lengths):
        mask[row, :length] = 1
    return ids.masked_fill(mask == 0, 0), mask
