"""Every program reads the same rows (a weight every token block reads): after the first, the L2 serves
them (tests/test_launch_time.py)."""

import triton
import triton.language as tl


@triton.jit
def shared_reads(w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        acc += tl.load(w_ptr + start + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), acc)


tritonscope_defaults = {"w_ptr": "*fp32", "out_ptr": "*fp32", "n": 1 << 20, "BLOCK": 1024}
