"""A loop that sets its own software-pipelining depth (`tl.range(..., num_stages=3)`), as Liger's
cross-entropy does: the kernel's num_stages does not reach it (tests/test_explain.py)."""

import triton
import triton.language as tl


@triton.jit
def row_sum(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for i in tl.range(0, n_cols, BLOCK, num_stages=3):
        offs = i + tl.arange(0, BLOCK)
        total += tl.load(x_ptr + offs, mask=offs < n_cols, other=0.0)
    tl.store(out_ptr, tl.sum(total))


tritonscope_defaults = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": 65536, "BLOCK": 1024}
