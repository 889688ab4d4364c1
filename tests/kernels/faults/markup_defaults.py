"""A default whose text is rich markup."""

import triton
import triton.language as tl


@triton.jit
def markup_kernel(x_ptr, NAME: tl.constexpr):
    tl.store(x_ptr, 1.0)


tritonscope_defaults = {"NAME": "[/x]"}
