"""Matrix transpose by tiles: a tile is read along rows and written along the other dimension.

tl.trans leaves the values where they are; the store's coalesced layout differs from the load's,
so the compiler moves the tile through shared memory (a layout conversion) between the two.
"""

import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    flipped = tl.trans(tile)
    tl.store(out_ptr + cols[:, None] * M + rows[None, :], flipped, mask=tl.trans(mask))


tritonscope_defaults = {"M": 8192, "N": 8192, "BLOCK_M": 64, "BLOCK_N": 64}


def grid(meta):
    return (triton.cdiv(meta["M"], meta["BLOCK_M"]), triton.cdiv(meta["N"], meta["BLOCK_N"]))


def make_inputs(size=8192, device="cuda"):
    """A (size, size) fp32 matrix (256 MiB at the default)."""
    import torch

    return (torch.randn(size, size, device=device),)


def launch(x, BLOCK_M=64, BLOCK_N=64, num_warps=4):
    import torch

    m, n = x.shape
    out = torch.empty((n, m), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))
    transpose_kernel[grid](x, out, m, n, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=num_warps)
    return out


def reference(x):
    return x.t().contiguous()
