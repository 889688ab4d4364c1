"""An accumulator rescaled in a loop while another wgmma runs (attention's pattern, in Gluon).

With WAIT=1 the rescale follows `warpgroup_mma_wait(1)`: the previous iteration's wgmma is done
(groups finish in order), but ptxas cannot prove it and serializes every wgmma in the kernel.
With WAIT=0 it follows `warpgroup_mma_wait(0)` and the wgmma stay pipelined.
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_init,
    warpgroup_mma_wait,
)

_tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared  # renamed in Triton 3.9


@gluon.jit
def rescaled_kernel(a_desc, b_desc, out_ptr, steps, WAIT: gl.constexpr, num_warps: gl.constexpr):
    layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                     instr_shape=[16, 64, 16])
    a_smem = gl.allocate_shared_memory(a_desc.dtype, [64, 64], a_desc.layout)
    b_smem = gl.allocate_shared_memory(b_desc.dtype, [64, 64], b_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
    _tma_load(a_desc, [0, 0], bar, a_smem)
    _tma_load(b_desc, [0, 0], bar, b_smem)
    mbarrier.wait(bar, 0)

    zero = gl.zeros([64, 64], gl.float32, layout=layout)
    acc = warpgroup_mma_init(zero)
    total = zero
    for _ in range(steps):
        scores = warpgroup_mma(a_smem, b_smem, zero, use_acc=False, is_async=True)
        acc = warpgroup_mma_wait(WAIT, deps=(acc,))
        acc = acc * 0.5
        acc = warpgroup_mma(a_smem, b_smem, acc, is_async=True)
        scores = warpgroup_mma_wait(1, deps=(scores,))
        total += scores
    acc = warpgroup_mma_wait(0, deps=(acc,))
    rows = gl.arange(0, 64, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, 64, layout=gl.SliceLayout(0, layout))
    gl.store(out_ptr + rows[:, None] * 64 + cols[None, :], acc + total)


tritonscope_defaults = {
    "a_desc": "tensordesc<fp16[64, 64]>", "b_desc": "tensordesc<fp16[64, 64]>", "steps": 8, "WAIT": 1,
    "num_warps": 4,
}
