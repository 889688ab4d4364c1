"""A load issued lines before its value is used: the wait shows on the line that uses it.

The kernel loads x, then works for several lines on values that do not depend on x (a
polynomial of the element's index), and only then reads x. A stall sample lands on the
instruction that waits: the line of `out = ...`, not the line of the load it waits for.
"""

import triton
import triton.language as tl


@triton.jit
def late_use_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    h = (offsets % 1024).to(tl.float32) * (1.0 / 1024)
    h = h * h * 0.5 + h * 0.25 + 0.125
    h = h * h * 0.5 + h * 0.25 + 0.125
    g = tl.sqrt(h + 1.0)
    out = x * g + h
    tl.store(out_ptr + offsets, out, mask=mask)


tritonscope_defaults = {"n": 2**26, "BLOCK": 1024}


def grid(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)


def make_inputs(size=2**26, device="cuda"):
    """`size` floats (256 MiB at the default)."""
    import torch

    return (torch.randn(size, device=device),)


def launch(x, BLOCK=1024, num_warps=4):
    import torch

    out = torch.empty_like(x)
    n = x.numel()
    late_use_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK, num_warps=num_warps)
    return out


def reference(x):
    import torch

    h = (torch.arange(x.numel(), device=x.device) % 1024).to(torch.float32) / 1024
    h = h * h * 0.5 + h * 0.25 + 0.125
    h = h * h * 0.5 + h * 0.25 + 0.125
    return x * torch.sqrt(h + 1.0) + h
