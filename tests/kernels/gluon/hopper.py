"""Gluon test kernels for Hopper (sm90): a TMA round trip through shared memory with an mbarrier,
and a tile product on warpgroup MMA. The descriptors' types come from `-a NAME='tensordesc<...>'`."""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma, warpgroup_mma

# Triton 3.7 renamed the TMA copies (async_copy_global_to_shared is async_load from then on).
tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global


@gluon.jit
def tma_scale(in_desc, out_desc, factor, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr):
    row = gl.program_id(0) * BLOCK_M
    tile = gl.allocate_shared_memory(in_desc.dtype, [BLOCK_M, BLOCK_N], in_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(ready, count=1)
    mbarrier.expect(ready, in_desc.block_type.nbytes)
    tma_load(in_desc, [row, 0], ready, tile)
    mbarrier.wait(ready, phase=0)
    mbarrier.invalidate(ready)
    regs: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [gl.num_warps(), 1], [1, 0])
    values = tile.load(regs) * factor
    tile.store(values.to(in_desc.dtype))
    fence_async_shared()
    tma_store(out_desc, [row, 0], tile)
    tma.store_wait(pendings=0)


@gluon.jit
def wgmma_tile(a_desc, b_desc, c_desc, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, BLOCK_K: gl.constexpr):
    a = gl.allocate_shared_memory(a_desc.dtype, [BLOCK_M, BLOCK_K], a_desc.layout)
    b = gl.allocate_shared_memory(b_desc.dtype, [BLOCK_K, BLOCK_N], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(ready, count=1)
    mbarrier.expect(ready, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
    tma_load(a_desc, [0, 0], ready, a)
    tma_load(b_desc, [0, 0], ready, b)
    mbarrier.wait(ready, phase=0)
    mbarrier.invalidate(ready)
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[gl.num_warps(), 1], instr_shape=[16, BLOCK_N, 16]
    )
    acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, acc_layout)
    acc = warpgroup_mma(a, b, acc)
    out = gl.allocate_shared_memory(c_desc.dtype, [BLOCK_M, BLOCK_N], c_desc.layout)
    out.store(acc.to(c_desc.dtype))
    fence_async_shared()
    tma_store(c_desc, [0, 0], out)
    tma.store_wait(pendings=0)
