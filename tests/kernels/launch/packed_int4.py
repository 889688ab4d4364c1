"""A GEMM whose weights are int4, eight to an int32 (GPTQ, AWQ, gemlite): a tile of BLOCK_K rows of the
unpacked weights reads BLOCK_K / 8 rows of the packed ones, each 8 times (`offs_k // 8`)."""

import triton
import triton.language as tl


@triton.jit
def int4_matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + (offs_k[:, None] // 8) * stride_bk + offs_n[None, :]
    shifts = ((offs_k % 8) * 4)[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        packed = tl.load(b_ptrs)
        weights = ((packed >> shifts) & 0xF).to(tl.float16) - 8.0
        acc += tl.dot(tl.load(a_ptrs), weights)
        a_ptrs += BLOCK_K
        b_ptrs += (BLOCK_K // 8) * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16))


tritonscope_defaults = {
    "a_ptr": "*fp16", "b_ptr": "*i32", "c_ptr": "*fp16", "M": 128, "N": 4096, "K": 4096, "stride_am": 4096,
    "stride_bk": 4096, "stride_cm": 4096, "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64,
}  # fmt: skip


def grid(meta):
    return (triton.cdiv(meta["M"], meta["BLOCK_M"]), triton.cdiv(meta["N"], meta["BLOCK_N"]))
