"""Row-wise inclusive prefix sum (tl.cumsum): one program scans one row held in registers.

The scan crosses threads with shuffles and warps through shared memory, in log(row) dependent
steps: a kernel whose time is in the scan's line, between a plain load and a plain store.
"""

import triton
import triton.language as tl


@triton.jit
def scan_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    total = tl.cumsum(x, axis=0)
    tl.store(out_ptr + row * n_cols + cols, total, mask=mask)


tritonscope_defaults = {"n_cols": 4096, "BLOCK": 4096, "num_warps": 8}


def grid(meta):
    return (meta.get("n_rows", 16384),)


def make_inputs(size=16384, device="cuda", cols=4096):
    """A (size, cols) matrix (256 MiB at the defaults)."""
    import torch

    return (torch.randn(size, cols, device=device),)


def launch(x, num_warps=8):
    import torch

    rows, cols = x.shape
    out = torch.empty_like(x)
    scan_kernel[(rows,)](x, out, cols, BLOCK=triton.next_power_of_2(cols), num_warps=num_warps)
    return out


def reference(x):
    return x.cumsum(dim=1)
