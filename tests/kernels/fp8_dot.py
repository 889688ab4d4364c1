"""An fp8 tl.dot: sm120 runs it on QMMA, sm90 on QGMMA (tests/test_targets.py counts them as matrix ops)."""

import triton
import triton.language as tl

tritonscope_defaults = {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*fp16"}


@triton.jit
def fp8_dot(a_ptr, b_ptr, c_ptr, BM: tl.constexpr = 64, BN: tl.constexpr = 64, BK: tl.constexpr = 64):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b).to(tl.float16))
