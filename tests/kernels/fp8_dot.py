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


@triton.jit
def fp8_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 128):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


tritonscope_defaults.update(M=4096, N=4096, K=4096)
