import triton


@triton.jit
def f(:
    pass
