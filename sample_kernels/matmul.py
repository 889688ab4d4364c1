"""Tiled matrix multiplication C = A @ B on a 2-D grid: program (m, n) computes one C tile."""

import triton
import triton.language as tl


@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    # How far to move in memory to reach the next row or column of each matrix.
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
):
    # Row-major launch order: program (pid_m, pid_n) owns C[pid_m-th row of tiles, pid_n-th column].
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)

    # Pointers to the first BLOCK_SIZE_M x BLOCK_SIZE_K tile of A and BLOCK_SIZE_K x BLOCK_SIZE_N
    # tile of B. Rows and columns past M and N wrap around (% M): they are never stored.
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    # Walk along K, accumulating in fp32 for accuracy.
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        # The last K tile may be partial: load zeros past K.
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# fp16 row-major 4096 x 4096 matrices: a stride of 1 becomes a compile-time constant,
# exactly as when Triton launches the kernel on contiguous torch tensors.
tritonscope_defaults = {
    "a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16",
    "M": 4096, "N": 4096, "K": 4096,
    "stride_am": 4096, "stride_ak": 1, "stride_bk": 4096, "stride_bn": 1, "stride_cm": 4096, "stride_cn": 1,
    "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
    "num_warps": 8, "num_stages": 3,
}


def grid(meta):
    """One program per C tile, on a 2-D grid: axis 0 walks the tile rows."""
    return (triton.cdiv(meta["M"], meta["BLOCK_SIZE_M"]), triton.cdiv(meta["N"], meta["BLOCK_SIZE_N"]))


def make_inputs(size=4096, device="cuda"):
    """Square fp16 matrices A (size x size) and B (size x size)."""
    import torch

    a = torch.randn(size, size, device=device, dtype=torch.float16)
    b = torch.randn(size, size, device=device, dtype=torch.float16)
    return a, b


def launch(a, b, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, num_warps=8, num_stages=3):
    import torch

    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(M, BLOCK_SIZE_M), triton.cdiv(N, BLOCK_SIZE_N))
    matmul_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N, BLOCK_SIZE_K=BLOCK_SIZE_K,
        num_warps=num_warps, num_stages=num_stages,
    )
    return c


def reference(a, b):
    return (a.float() @ b.float()).half()


def torch_op(a, b):
    return a @ b


def work(a, b):
    (m, k), n = a.shape, b.shape[1]
    return {"flops": 2 * m * n * k, "bytes": (m * k + k * n + m * n) * a.element_size()}
