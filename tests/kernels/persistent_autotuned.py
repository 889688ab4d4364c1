"""A persistent, autotuned matmul (a kernel author's, h24a): each of the grid's programs loops over the
output tiles, `range(pid, num_tiles, tl.num_programs(0))`, a K loop inside with its own
`tl.range(..., num_stages=3)`. Its four configs run 2 to 32 tiles a program on a grid of 132."""

import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64}, num_warps=8, num_stages=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=2),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 64}, num_warps=8, num_stages=5),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def persistent_matmul(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    num_tiles = num_m * num_n
    for tile in range(pid, num_tiles, nprog):
        pm = tile // num_n
        pn = tile % num_n
        rm = pm * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = pn * BLOCK_N + tl.arange(0, BLOCK_N)
        rk = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=3):
            a = tl.load(
                a_ptr + rm[:, None] * stride_am + (k * BLOCK_K + rk)[None, :] * stride_ak,
                mask=(rm[:, None] < M) & ((k * BLOCK_K + rk)[None, :] < K),
                other=0.0,
            )
            b = tl.load(
                b_ptr + (k * BLOCK_K + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                mask=((k * BLOCK_K + rk)[:, None] < K) & (rn[None, :] < N),
                other=0.0,
            )
            acc = tl.dot(a, b, acc)
        c = acc.to(c_ptr.dtype.element_ty)
        tl.store(
            c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, c, mask=(rm[:, None] < M) & (rn[None, :] < N)
        )


tritonscope_defaults = {
    "a_ptr": "*fp16",
    "b_ptr": "*fp16",
    "c_ptr": "*fp16",
    "M": 4096,
    "N": 4096,
    "K": 4096,
    "stride_am": 4096,
    "stride_ak": 1,
    "stride_bk": 4096,
    "stride_bn": 1,
    "stride_cm": 4096,
    "stride_cn": 1,
}


def grid(meta):
    return (132,)
