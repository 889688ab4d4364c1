import triton
import triton.language as tl


@triton.jit
def arange_not_power_of_two(x_ptr, n):
    # line 7
    # line 8
    # line 9
    # line 10
    offs = tl.arange(0, 100)
    tl.store(x_ptr + offs, offs, mask=offs < n)


@triton.jit
def dot_shapes(a_ptr, b_ptr, c_ptr):
    offs = tl.arange(0, 32)
    a = tl.load(a_ptr + offs[:, None] * 32 + offs[None, :])
    b = tl.load(b_ptr + tl.arange(0, 16)[:, None] * 32 + offs[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + offs[:, None] * 32 + offs[None, :], c)


@triton.jit
def undefined_name(x_ptr):
    tl.store(x_ptr, undefined_thing)  # noqa: F821


@triton.jit
def bad_helper(x_ptr):
    offs = tl.arange(0, 100)
    return tl.load(x_ptr + offs)


@triton.jit
def calls_bad_helper(x_ptr):
    bad_helper(x_ptr)


@triton.jit
def needs_block(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs, mask=offs < n)


@triton.jit
def cdiv_of_a_pointer(x_ptr, BLOCK: tl.constexpr):
    steps = tl.cdiv(x_ptr, BLOCK)  # fails inside triton.language.standard's cdiv
    tl.store(x_ptr + tl.arange(0, BLOCK), steps)
