"""A user's autotuned Triton kernel (`@triton.autotune` with `prune_configs_by`: an early prune by
the problem size, then a perf model keeping the best two) called two ways: as a torch.library
triton_op inside torch.compile (Inductor prunes and tunes the configs itself), and directly, where
Triton's autotuner does, at a size that is not a multiple of 16."""

import corpus
import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton

CONFIGS = [triton.Config({"BLOCK": block}, num_warps=warps) for block in (256, 1024, 4096) for warps in (2, 4, 8)]


def drop_oversized_blocks(configs, named_args, **kwargs):
    largest = max(256, triton.next_power_of_2(named_args["n"]))
    return [config for config in configs if config.kwargs["BLOCK"] <= largest]


def estimated_time(n, BLOCK, num_warps, **kwargs):
    return triton.cdiv(n, BLOCK) / num_warps + BLOCK / 1024


@triton.autotune(
    configs=CONFIGS,
    key=["n"],
    prune_configs_by={"early_config_prune": drop_oversized_blocks, "perf_model": estimated_time, "top_k": 2},
    do_bench=corpus.AUTOTUNE_BENCH,
)
@triton.jit
def scaled_residual_kernel(x_ptr, y_ptr, out_ptr, scale, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + scale * tl.sigmoid(y), mask=mask)


def _launch(kernel, x, y, scale):
    out = torch.empty_like(x)
    n = x.numel()
    kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, scale, n)
    return out


@triton_op("tritonscope_corpus::scaled_residual", mutates_args={})
def scaled_residual(x: torch.Tensor, y: torch.Tensor, scale: float) -> torch.Tensor:
    return _launch(wrap_triton(scaled_residual_kernel), x, y, scale)


def block(x, weight):
    return scaled_residual(x, torch.nn.functional.layer_norm(x @ weight, x.shape[-1:]), 0.5)


def main() -> None:
    corpus.start()
    weight = torch.randn(256, 256, device=corpus.DEVICE) / 16
    compiled_block = corpus.compiled(block)
    for _ in range(2):
        compiled_block(torch.randn(32, 256, device=corpus.DEVICE), weight)
    x, y = (torch.randn(3000, device=corpus.DEVICE) for _ in range(2))
    for _ in range(2):
        _launch(scaled_residual_kernel, x, y, 2.0)
    corpus.finish("user_autotune")


if __name__ == "__main__":
    main()
