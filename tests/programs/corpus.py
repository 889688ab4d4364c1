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


def host_ids(vocab: int, shape: tuple[int, ...], seed: int) -> torch.Tensor:
    """Token ids in 3..vocab-1 drawn on the host from a generator of their own, then moved: the same
    ids on every device (a GPU's generator draws other numbers than the CPU's). 0, 1 and 2 stay
    free for padding, BOS and EOS."""
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(3, vocab, shape, generator=generator).to(DEVICE)


def host_normal(shape: tuple[int, ...], seed: int) -> torch.Tensor:
    """Normal samples drawn on the host from a generator of their own, then moved (as host_ids):
    the values the program prints are then the same on a CPU and a GPU, to rounding."""
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed)).to(DEVICE)


def padded_batch(vocab: int, lengths: list[int], seq: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids and an attention mask of 1s then 0s (right padding): one row per length."""
    ids = torch.randint(1, vocab, (len(lengths), seq), device=DEVICE)
    mask = torch.zeros(len(lengths), seq, dtype=torch.long, device=DEVICE)
    for row, length in enumerate(lengths):
        mask[row, :length] = 1
    return ids.masked_fill(mask == 0, 0), mask


# The decoding programs' EOS: the token the model below emits greedily at its 6th step from
# DECODING_PROMPT, new there (not in the prompt nor among the five before it), so that greedy
# decoding stops at step 6 of 16 on any device. Found by running it (fp32 on the CPU): the
# top-1 logit leads the runner-up by 0.04 or more at each of the six steps (the program prints
# the smallest lead it saw), against a CPU-GPU difference of about 1e-5 in fp32 logits of this
# size (no TF32: torch leaves it off for matmuls by default), so no step is a near tie.
DECODING_EOS = 56
DECODING_VOCAB = 256


def decoding_llama():
    """A 2-layer Llama in fp32 with sharp random weights (initializer_range 0.2: the default 0.02
    gives near-uniform logits whose argmax a rounding can flip), built on the host from the seed,
    so its weights are the same on every device; padding id 0, EOS DECODING_EOS."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=DECODING_VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        initializer_range=0.2,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=DECODING_EOS,
        attn_implementation="sdpa",
    )
    model = LlamaForCausalLM(config).eval()
    model.generation_config.pad_token_id = 0
    model.generation_config.eos_token_id = DECODING_EOS
    return model.to(DEVICE)


def decoding_prompt(batch: int = 1) -> torch.Tensor:
    """The prompt greedy decoding starts from (8 tokens; rows after the first from other seeds)."""
    return torch.cat([host_ids(DECODING_VOCAB, (1, 8), seed=1 + row) for row in range(batch)])


def smallest_lead(logits: tuple[torch.Tensor, ...]) -> float:
    """Over the steps of a greedy generate() (its output_logits), the smallest gap between the top
    two logits of any row: how far the run was from a tie that a rounding could flip."""
    return min((step.float().topk(2).values.diff(dim=-1).abs().min().item() for step in logits), default=0.0)
