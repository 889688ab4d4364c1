"""Optional pointers: a variable-length path taken only when cu_seqlens is given, decided by an
`is not None` test in the kernel (with a signature default of None) or by a heuristic."""

import triton
import triton.language as tl


@triton.jit
def offsets_kernel(x_ptr, out_ptr, n, cu_seqlens=None, BLOCK: tl.constexpr = 128):
    pid = tl.program_id(0)
    if cu_seqlens is not None:
        start = tl.load(cu_seqlens + pid)
    else:
        start = pid * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@triton.heuristics({"IS_VARLEN": lambda args: args["cu_seqlens"] is not None})
@triton.jit
def varlen_kernel(x_ptr, out_ptr, cu_seqlens, T, IS_VARLEN: tl.constexpr, BLOCK: tl.constexpr = 128):
    pid = tl.program_id(0)
    if IS_VARLEN:
        bos = tl.load(cu_seqlens + pid).to(tl.int32)
        eos = tl.load(cu_seqlens + pid + 1).to(tl.int32)
    else:
        bos = pid * T
        eos = bos + T
    offsets = bos + tl.arange(0, BLOCK)
    mask = offsets < eos
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)
