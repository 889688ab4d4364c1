"""A small matrix product with fp32 operands and input_precision="ieee": no tensor core takes it."""

import triton
import triton.language as tl


@triton.jit
def dot_ieee(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    a = tl.load(a_ptr + rows * BLOCK + cols)
    b = tl.load(b_ptr + rows * BLOCK + cols)
    c = tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rows * BLOCK + cols, c)


tritonscope_defaults = {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "BLOCK": 32}
