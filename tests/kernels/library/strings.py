"""String constexprs: a loss reduction chosen by name, a mode compared with the string "1", and an
autotune config holding the dot's input precision."""

import triton
import triton.language as tl


@triton.jit
def loss_kernel(x_ptr, out_ptr, n, reduction: tl.constexpr, BLOCK: tl.constexpr = 1024):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    total = tl.sum(x, axis=0)
    if reduction == "mean":
        total = total / n
    tl.store(out_ptr, total)


@triton.jit
def mode_kernel(out_ptr, MODE: tl.constexpr):
    if MODE == "1":
        tl.store(out_ptr, 1.0)
    else:
        tl.store(out_ptr, 2.0)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 32, "DOT_PRECISION": "ieee"}),
        triton.Config({"BLOCK": 32, "DOT_PRECISION": "tf32"}),
    ],
    key=[],
)
@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr, DOT_PRECISION: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tile = offsets[:, None] * BLOCK + offsets[None, :]
    c = tl.dot(tl.load(a_ptr + tile), tl.load(b_ptr + tile), input_precision=DOT_PRECISION)
    tl.store(c_ptr + tile, c)
