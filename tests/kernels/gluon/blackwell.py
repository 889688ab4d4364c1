"""Gluon test kernel for Blackwell (sm100): a tile product on tcgen05 MMA, accumulating in tensor
memory, its completion tracked by an mbarrier."""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (
    TensorMemoryLayout,
    allocate_tensor_memory,
    tcgen05_commit,
    tcgen05_mma,
)
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma

# Triton 3.7 renamed the TMA copies (async_copy_global_to_shared is async_load from then on).
tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global


@gluon.jit
def tcgen05_tile(a_desc, b_desc, c_desc, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, BLOCK_K: gl.constexpr):
    a = gl.allocate_shared_memory(a_desc.dtype, [BLOCK_M, BLOCK_K], a_desc.layout)
    b = gl.allocate_shared_memory(b_desc.dtype, [BLOCK_K, BLOCK_N], b_desc.layout)
    loaded = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    done = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(loaded, count=1)
    mbarrier.init(done, count=1)
    mbarrier.expect(loaded, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
    tma_load(a_desc, [0, 0], loaded, a)
    tma_load(b_desc, [0, 0], loaded, b)
    mbarrier.wait(loaded, phase=0)
    # The accumulator lives in tensor memory, not in registers.
    acc_tmem = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N], TensorMemoryLayout([BLOCK_M, BLOCK_N], 1))
    tcgen05_mma(a, b, acc_tmem, use_acc=False)
    tcgen05_commit(done)
    mbarrier.wait(done, phase=0)
    # One thread per row of the 128-row tile: the 32x32b tensor-memory message.
    rows: gl.constexpr = gl.BlockedLayout([1, BLOCK_N], [32, 1], [gl.num_warps(), 1], [0, 1])
    acc = acc_tmem.load(rows)
    out = gl.allocate_shared_memory(c_desc.dtype, [BLOCK_M, BLOCK_N], c_desc.layout)
    out.store(acc.to(c_desc.dtype))
    fence_async_shared()
    tma_store(c_desc, [0, 0], out)
    tma.store_wait(pendings=0)
    mbarrier.invalidate(loaded)
    mbarrier.invalidate(done)
