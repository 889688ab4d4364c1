"""Special functions in a loop: exponentials, sines and reciprocal square roots, which the
multi-function unit (MUFU) computes at a quarter of the FMA rate, each with its own latency."""

import triton
import triton.language as tl


@triton.jit
def mufu_kernel(x_ptr, out_ptr, n, ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    acc = tl.zeros_like(x)
    for _ in tl.static_range(ROUNDS):
        e = tl.exp(x * 0.5)
        s = tl.sin(e + acc)
        acc += tl.rsqrt(e + s * s + 1.0)
    tl.store(out_ptr + offsets, acc, mask=mask)


tritonscope_defaults = {"n": 2**25, "ROUNDS": 8, "BLOCK": 1024}


def grid(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)


def make_inputs(size=2**25, device="cuda"):
    import torch

    return (torch.randn(size, device=device),)


def launch(x, ROUNDS=8, BLOCK=1024, num_warps=4):
    import torch

    out = torch.empty_like(x)
    n = x.numel()
    mufu_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, ROUNDS=ROUNDS, BLOCK=BLOCK, num_warps=num_warps)
    return out


def reference(x, ROUNDS=8):
    import torch

    x = x.double()
    acc = torch.zeros_like(x)
    for _ in range(ROUNDS):
        e = torch.exp(x * 0.5)
        s = torch.sin(e + acc)
        acc = acc + torch.rsqrt(e + s * s + 1.0)
    return acc.float()
