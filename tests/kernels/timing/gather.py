"""Random gather: out[i] = table[index[i]], each load's address read from memory first.

Every thread waits twice in a row on global memory (the index, then the element it names),
and the table is far larger than L2, so most element loads miss: a latency-bound kernel.
"""

import triton
import triton.language as tl


@triton.jit
def gather_kernel(table_ptr, index_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    index = tl.load(index_ptr + offsets, mask=mask, other=0)
    value = tl.load(table_ptr + index, mask=mask)
    tl.store(out_ptr + offsets, value, mask=mask)


tritonscope_defaults = {"n": 2**25, "BLOCK": 1024}


def grid(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)


def make_inputs(size=2**25, device="cuda", table=2**27):
    """`size` random indices into a table of `table` floats (512 MiB: 10 times the H100's L2)."""
    import torch

    values = torch.randn(table, device=device)
    index = torch.randint(0, table, (size,), device=device, dtype=torch.int32)
    return values, index


def launch(table, index, BLOCK=1024, num_warps=4):
    import torch

    out = torch.empty(index.shape, device=index.device, dtype=table.dtype)
    n = index.numel()
    gather_kernel[(triton.cdiv(n, BLOCK),)](table, index, out, n, BLOCK=BLOCK, num_warps=num_warps)
    return out


def reference(table, index):
    return table[index.long()]
