"""Lookups into a table by data: `table[x % T]` for every element, T a constexpr (and whole rows of
one, `row_lookup_kernel`).

The table's size decides where its reads are served: a small one stays in each SM's L1, one the L2
holds is read from the DRAM once, a larger one misses the L2 at random (benchmarks/atomics.py).
"""

import triton
import triton.language as tl


@triton.jit
def lookup_kernel(x_ptr, table_ptr, out_ptr, n, T: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0)
    y = tl.load(table_ptr + x % T, mask=mask)
    tl.store(out_ptr + offsets, y, mask=mask)


tritonscope_defaults = {"x_ptr": "*i32", "table_ptr": "*fp32", "out_ptr": "*fp32", "n": 2**25, "T": 256, "BLOCK": 1024}


def grid(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)


@triton.jit
def row_lookup_kernel(x_ptr, table_ptr, out_ptr, n, T: tl.constexpr, D: tl.constexpr, ROWS: tl.constexpr):
    """Rows of D floats looked up by data: `table[x % T, :]`, each a run of D * 4 bytes."""
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    mask = rows < n
    x = tl.load(x_ptr + rows, mask=mask, other=0)
    cols = tl.arange(0, D)
    y = tl.load(table_ptr + (x % T)[:, None] * D + cols[None, :], mask=mask[:, None])
    tl.store(out_ptr + rows[:, None] * D + cols[None, :], y, mask=mask[:, None])
