"""A column of a row-major matrix, in blocks of BT rows (flash-linear-attention's chunk_local_cumsum):
each program reads and writes BT elements H apart, the H programs of a block of rows side by side in
launch order.
MODE 0 copies, 1 reads (one sum a program written), 2 writes."""

import triton
import triton.language as tl


@triton.jit
def strided_kernel(s, o, T, H: tl.constexpr, BT: tl.constexpr, MODE: tl.constexpr):
    i_h, i_t = tl.program_id(0) % H, tl.program_id(0) // H
    o_t = i_t * BT + tl.arange(0, BT)
    m_t = o_t < T
    if MODE == 0:
        tl.store(o + i_h + o_t * H, tl.load(s + i_h + o_t * H, mask=m_t), mask=m_t)
    elif MODE == 1:
        tl.store(o + i_t * H + i_h, tl.sum(tl.load(s + i_h + o_t * H, mask=m_t)))
    else:
        tl.store(o + i_h + o_t * H, tl.full((BT,), 1.0, tl.float32), mask=m_t)


tritonscope_defaults = {"s": "*fp32", "o": "*fp32", "T": 1 << 20, "H": 16, "BT": 64, "MODE": 0}


def grid(meta):
    return (meta["H"] * triton.cdiv(meta["T"], meta["BT"]),)
