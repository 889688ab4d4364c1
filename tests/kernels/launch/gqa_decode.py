"""Split-KV decode attention over a paged KV cache (SGLang's shape, cut down): each program is one
(batch, query head, split); its tokens' rows are read through `kv_indices`, from bounds loaded from
`kv_indptr`; the query heads of a group (GROUP of them) read the same K and V rows."""

import triton
import triton.language as tl


@triton.jit
def decode_attention(q_ptr, k_ptr, v_ptr, out_ptr, kv_indptr, kv_indices, num_splits, n_heads,
                     stride_kt, stride_kh, GROUP: tl.constexpr, BLOCK_N: tl.constexpr,
                     HEAD_DIM: tl.constexpr):
    batch = tl.program_id(0)
    head = tl.program_id(1)
    split = tl.program_id(2)
    kv_head = head // GROUP
    start = tl.load(kv_indptr + batch)
    length = tl.load(kv_indptr + batch + 1) - start
    per_split = tl.cdiv(length, tl.load(num_splits + batch))
    lo = per_split * split
    hi = tl.minimum(lo + per_split, length)
    d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + (batch * n_heads + head) * HEAD_DIM + d).to(tl.float32)
    acc = tl.zeros((HEAD_DIM,), tl.float32)
    for n in range(lo, hi, BLOCK_N):
        offs = n + tl.arange(0, BLOCK_N)
        rows = tl.load(kv_indices + start + offs, mask=offs < hi, other=0)
        k = tl.load(k_ptr + rows[:, None] * stride_kt + kv_head * stride_kh + d[None, :])
        score = tl.sum(k.to(tl.float32) * q[None, :], 1)
        v = tl.load(v_ptr + rows[:, None] * stride_kt + kv_head * stride_kh + d[None, :])
        acc += tl.sum(v.to(tl.float32) * score[:, None], 0)
    tl.store(out_ptr + ((batch * n_heads + head) * 8 + split) * HEAD_DIM + d, acc)
