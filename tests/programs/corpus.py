"""What every corpus program shares. Each program runs its model on `cuda` under torch.compile, as
on the H100 (tests/programs/capture_h100.py traces them there); `TRITONSCOPE_CORPUS_DEVICE=cpu` runs
it on the CPU instead, eagerly (torch.compile left out, Triton kernels on Triton's interpreter), to
check the model code where there is no GPU. Weights are random, from small configs, seeded; nothing
is downloaded. Import this module before Triton: the interpreter is chosen when Triton is imported.
"""

from __future__ import annotations

import os

DEVICE = os.environ.get("TRITONSCOPE_CORPUS_DEVICE", "cuda")
ON_GPU = DEVICE == "cuda"
if not ON_GPU:
    os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402  (after the interpreter is chosen)


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
