"""One line that is a long chain of dependent fused multiply-adds, and nothing else to speak of:
no load (each thread's value comes from its index), one store at the end."""

import triton
import triton.language as tl


@triton.jit
def fma_one_line_kernel(out_ptr, a, b, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = offsets.to(tl.float32)
    for _ in tl.static_range(STEPS):
        x = x * a + b
    tl.store(out_ptr + offsets, x)


tritonscope_defaults = {"out_ptr": "*fp32", "a": 0.5, "b": 0.25, "STEPS": 256, "BLOCK": 256}
