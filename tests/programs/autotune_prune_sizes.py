"""A user's autotuned Triton kernel with an `early_config_prune` hook, called directly inside a
torch.compile'd function at two sizes (issue 51, item 5: the H100 compiled 6 configs more than the
simulated GPU for such a program). Nine configs (BLOCK 128, 512, 2048 by 2, 4, 8 warps); the hook
keeps the blocks no larger than the problem's next power of two, so the first size (384 elements)
keeps six and the second (5000) all nine. Each size is called twice: the second size recompiles
the function (torch.compile's automatic dynamic shapes then make the size symbolic)."""

import corpus
import torch
import triton
import triton.language as tl

CONFIGS = [triton.Config({"BLOCK": block}, num_warps=warps) for block in (128, 512, 2048) for warps in (2, 4, 8)]


def blocks_that_fit(configs, named_args, **kwargs):
    largest = max(128, triton.next_power_of_2(named_args["n"]))
    return [config for config in configs if config.kwargs["BLOCK"] <= largest]


@triton.autotune(
    configs=CONFIGS, key=["n"], prune_configs_by={"early_config_prune": blocks_that_fit}, do_bench=corpus.AUTOTUNE_BENCH
)
@triton.jit
def shifted_gelu_kernel(x_ptr, out_ptr, shift, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask) + shift
    tl.store(out_ptr + offsets, 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476)), mask=mask)


def shifted_gelu(x, shift: float):
    out = torch.empty_like(x)
    n = x.numel()
    shifted_gelu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, shift, n)
    return out


def block(x):
    return shifted_gelu(x * 2.0, 0.5) + 1.0


def main() -> None:
    corpus.start()
    compiled_block = corpus.compiled(block)
    for size in (384, 5000):
        for _ in range(2):
            compiled_block(corpus.host_normal((size,), seed=size))
    corpus.finish("autotune_prune_sizes")


if __name__ == "__main__":
    main()
