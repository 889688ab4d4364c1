"""As 09-persistent-matmul and Gluon's 07-persistence: an autotuned kernel whose pre_hook sets its
TMA descriptors' block shape anew for each config, its result checked; then benchmarks through
triton.testing.do_bench_cudagraph and a CUDA graph of the program's own, and a last kernel
launched only after them."""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

DEVICE = triton.runtime.driver.active.get_active_torch_device()
ROWS, COLS = 64, 64


def set_block_shape(nargs):
    nargs["x_desc"].block_shape = [nargs["BLOCK_M"], COLS]
    nargs["out_desc"].block_shape = [nargs["BLOCK_M"], COLS]


@triton.autotune(
    configs=[triton.Config({"BLOCK_M": m}, num_warps=4, pre_hook=set_block_shape) for m in (16, 32)], key=["n"]
)
@triton.jit
def tuned_copy_kernel(x_desc, out_desc, n, BLOCK_M: tl.constexpr):
    row = tl.program_id(0) * BLOCK_M
    ones = tl.full((BLOCK_M, 64), 1, tl.float16)  # of the config's shape: the descriptor's must agree
    out_desc.store([row, 0], x_desc.load([row, 0]) + ones)


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, 3 * tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


@triton.jit
def after_graphs_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) - 1, mask=offsets < n)


if __name__ == "__main__":
    x = torch.randn(ROWS, COLS, device=DEVICE, dtype=torch.float16)
    out = torch.empty_like(x)
    x_desc, out_desc = TensorDescriptor.from_tensor(x, [16, COLS]), TensorDescriptor.from_tensor(out, [16, COLS])
    tuned_copy_kernel[lambda meta: (ROWS // meta["BLOCK_M"],)](x_desc, out_desc, x.numel())
    print("tuned copy", "ok" if torch.equal(out, x + 1) else "wrong")

    flat = x.flatten()
    scaled = torch.empty_like(flat)
    ms = triton.testing.do_bench_cudagraph(lambda: scale_kernel[(4,)](flat, scaled, flat.numel(), BLOCK=1024))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, pool=torch.cuda.graph_pool_handle()):  # a pool to share, as vLLM's graphs do
        capturing = torch.cuda.is_current_stream_capturing()
        scale_kernel[(8,)](flat, scaled, flat.numel(), BLOCK=512)
    graph.replay()
    print("graph captured while capturing:", capturing, "benchmark ms > 0:", ms > 0)
    after_graphs_kernel[(4,)](scaled, scaled.numel(), BLOCK=1024)
    print("scaled", "ok" if torch.allclose(scaled, 3 * flat - 1) else "wrong")
