"""Gluon test kernel: warp specialization (sm90 and later). One worker warp loads tiles with TMA
into a ring of shared buffers; the default partition's warps scale them and write them out."""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

# Triton 3.7 renamed the TMA copies (async_copy_global_to_shared is async_load from then on).
tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared


@gluon.jit
def _loader(in_desc, buffers, ready, free, tiles, STAGES: gl.constexpr):
    for i in range(tiles):
        slot = i % STAGES
        mbarrier.wait(free.index(slot), (i // STAGES) & 1 ^ 1)
        mbarrier.expect(ready.index(slot), in_desc.block_type.nbytes)
        tma_load(in_desc, [i * in_desc.block_type.shape[0], 0], ready.index(slot), buffers.index(slot))


@gluon.jit
def _scaler(out_ptr, buffers, ready, free, tiles, factor, STAGES: gl.constexpr, BLOCK: gl.constexpr):
    regs: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [gl.num_warps(), 1], [1, 0])
    rows = gl.arange(0, BLOCK, layout=gl.SliceLayout(1, regs))
    cols = gl.arange(0, BLOCK, layout=gl.SliceLayout(0, regs))
    for i in range(tiles):
        slot = i % STAGES
        mbarrier.wait(ready.index(slot), (i // STAGES) & 1)
        tile = buffers.index(slot).load(regs)
        mbarrier.arrive(free.index(slot), count=1)
        offsets = (i * BLOCK + rows[:, None]) * BLOCK + cols[None, :]
        gl.store(out_ptr + offsets, tile * factor)


@gluon.jit
def pipelined_scale(in_desc, out_ptr, tiles, factor, STAGES: gl.constexpr, BLOCK: gl.constexpr):
    buffers = gl.allocate_shared_memory(in_desc.dtype, [STAGES, BLOCK, BLOCK], in_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    free = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(free.index(s), count=1)
    gl.warp_specialize(
        [
            (_scaler, (out_ptr, buffers, ready, free, tiles, factor, STAGES, BLOCK)),
            (_loader, (in_desc, buffers, ready, free, tiles, STAGES)),
        ],
        [1],
        [48],
    )
