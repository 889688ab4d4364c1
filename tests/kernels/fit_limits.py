"""A tiled matmul whose autotune configs sit just under, at and just over the shared-memory limits of
the common GPUs: `fit`'s tests and its H100 proof (tests/test_fit.py, tests/test_fit_gpu.py).

Each pipelined stage keeps a BLOCK_M x BLOCK_K tile of A and a BLOCK_K x BLOCK_N tile of B (fp16): on an
H100 the loop takes num_stages x (BLOCK_M + BLOCK_N) x BLOCK_K x 2 bytes, plus 1 KiB (the pipeline's
barriers and the epilogue); on Ampere and Ada one stage fewer. With W_N > 0 a BLOCK_K x W_N tile of W, loaded
once before the loop, feeds a second dot: W_N x BLOCK_K x 2 bytes more, in steps of 2 KiB, which is how
the configs below land 2 KiB under, exactly at and 2 KiB over the H100's 227 KiB.
"""

import triton
import triton.language as tl

CONFIGS = [
    # H100 (227 KiB = 232448 bytes): 7 x 32 KiB + 1 KiB = 225 KiB, then + 2 KiB, + 4 KiB; 8 stages: 257 KiB.
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "W_N": 0}, num_stages=7, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "W_N": 16}, num_stages=7, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "W_N": 32}, num_stages=7, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "W_N": 0}, num_stages=8, num_warps=8),
    # Ampere and Ada (99 KiB = 101376 bytes): 5 x 20 KiB = 100 KiB over, 6 x 16 KiB = 96 KiB under.
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 128, "BLOCK_K": 64, "W_N": 0}, num_stages=6, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "W_N": 0}, num_stages=7, num_warps=4),
    # Small: fits every target, a T4 and an MI300X (64 KiB) too.
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "W_N": 0}, num_stages=3, num_warps=4),
]


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
@triton.jit
def tiled_matmul(
    a_ptr, b_ptr, w_ptr, c_ptr, d_ptr, M, N, K,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, W_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    if W_N > 0:
        rw = tl.arange(0, W_N)
        w = tl.load(w_ptr + rk[:, None] * W_N + rw[None, :])
        extra = tl.zeros((BLOCK_M, W_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] + k < K), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] + k < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        if W_N > 0:
            extra = tl.dot(a, w, extra)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))
    if W_N > 0:
        tl.store(d_ptr + rm[:, None] * W_N + rw[None, :], extra.to(tl.float16), mask=rm[:, None] < M)


tritonscope_defaults = {
    "a_ptr": "*fp16", "b_ptr": "*fp16", "w_ptr": "*fp16", "c_ptr": "*fp16", "d_ptr": "*fp16",
    "M": 512, "N": 512, "K": 512,
}


def grid(meta):
    return (triton.cdiv(meta["M"], meta["BLOCK_M"]), triton.cdiv(meta["N"], meta["BLOCK_N"]))
