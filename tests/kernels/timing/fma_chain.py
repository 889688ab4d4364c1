"""A long chain of dependent fused multiply-adds: each one needs the result of the one before.

One element per thread, so a warp has no independent work to issue while an FMA's result is
on its way: the time is the chain's latency, spread over the three lines of the loop body.
"""

import triton
import triton.language as tl


@triton.jit
def fma_chain_kernel(x_ptr, out_ptr, n, a, b, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    for _ in tl.static_range(STEPS):
        x = x * a + b
        x = x * b + a
        x = x * x + a
    tl.store(out_ptr + offsets, x, mask=mask)


tritonscope_defaults = {"n": 2**24, "a": 0.5, "b": 0.25, "STEPS": 64, "BLOCK": 256}


def grid(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)


def make_inputs(size=2**24, device="cuda"):
    """`size` floats in [0, 1): the chain keeps them bounded (x*x + 0.5 stays below 1 from there)."""
    import torch

    return (torch.rand(size, device=device) * 0.5,)


def launch(x, STEPS=64, BLOCK=256, num_warps=8):
    import torch

    out = torch.empty_like(x)
    n = x.numel()
    fma_chain_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, 0.5, 0.25, STEPS=STEPS, BLOCK=BLOCK, num_warps=num_warps)
    return out


def reference(x, STEPS=64):
    x = x.double()
    for _ in range(STEPS):
        x = x * 0.5 + 0.25
        x = x * 0.25 + 0.5
        x = x * x + 0.5
    return x.float()
