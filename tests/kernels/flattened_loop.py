"""A persistent loop over rows with an inner loop over columns, flattened by Triton where FLATTEN
(tl.range(..., flatten=True)): the row's epilogue (its last two lines) runs once every column loop's trips."""

import triton
import triton.language as tl


@triton.jit
def persistent_sum(x_ptr, out_ptr, n_rows, n_cols, NUM_PROGRAMS: tl.constexpr, BLOCK: tl.constexpr,
                   FLATTEN: tl.constexpr):
    start = tl.program_id(0)
    col_steps = tl.cdiv(n_cols, BLOCK)
    for row in tl.range(start, n_rows, NUM_PROGRAMS, flatten=FLATTEN):
        total = tl.zeros((BLOCK,), dtype=tl.float32)
        for step in range(col_steps):
            cols = step * BLOCK + tl.arange(0, BLOCK)
            total += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        scaled = tl.sqrt(tl.abs(total)) * 3.0 + tl.exp(total)
        tl.store(out_ptr + row * BLOCK + tl.arange(0, BLOCK), scaled)
