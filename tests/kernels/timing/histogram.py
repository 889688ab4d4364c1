"""Histogram by global atomics: every element adds one to its bin, bins shared by all programs.

The atomics of a warp that hit one bin are serialized, and every program contends for the same
few bins in L2: the time goes to the atomic line, not to the load before it.
"""

import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, bins_ptr, n, N_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0)
    bin = x % N_BINS
    tl.atomic_add(bins_ptr + bin, 1, mask=mask, sem="relaxed")


tritonscope_defaults = {"x_ptr": "*i32", "bins_ptr": "*i32", "n": 2**25, "N_BINS": 256, "BLOCK": 1024}


def grid(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)


def make_inputs(size=2**25, device="cuda"):
    """`size` random non-negative int32 values."""
    import torch

    return (torch.randint(0, 2**20, (size,), device=device, dtype=torch.int32),)


def launch(x, N_BINS=256, BLOCK=1024, num_warps=4):
    import torch

    bins = torch.zeros(N_BINS, device=x.device, dtype=torch.int32)
    n = x.numel()
    histogram_kernel[(triton.cdiv(n, BLOCK),)](x, bins, n, N_BINS=N_BINS, BLOCK=BLOCK, num_warps=num_warps)
    return bins


def reference(x, N_BINS=256):
    import torch

    return torch.bincount((x % N_BINS).long(), minlength=N_BINS).to(torch.int32)
