"""Two stores, the second under a runtime branch: the drain after EXIT sits on the `if` line (the
instruction after EXIT), where a profiler samples exiting warps; whose stores drain is said."""

import triton
import triton.language as tl

tritonscope_defaults = {"x_ptr": "*bf16", "y_ptr": "*bf16", "n": 4096, "m": 8}


@triton.jit
def heads(x_ptr, y_ptr, n, m, BLOCK: tl.constexpr = 64):
    head = tl.program_id(1)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * 2, mask=offs < n)
    if head < m:
        z = tl.load(x_ptr + n + offs, mask=offs < n)
        tl.store(y_ptr + n + offs, z * 3, mask=offs < n)
