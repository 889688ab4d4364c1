"""A program for `trace` on the CPU: compiles kernels with triton.compile and passes launches with CPU
tensors through CompiledKernel.launch_metadata, the method every launch calls first (on a GPU the
launcher runs next; here Triton fails to find a driver after it, and the program goes on)."""

import sys

import torch
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

from tritonscope.core.samples import samples_dir

sys.path.insert(0, str(samples_dir()))
import vector_add  # noqa: E402

SCALE = tl.constexpr(2)


@triton.jit
def gather_kernel(out_ptr, src_ptr, index_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    index = tl.load(index_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.load(src_ptr + index, mask=mask) * SCALE, mask=mask)


def launch(kernel, grid, *args):
    try:
        kernel.launch_metadata(grid, 0, *args)
    except Exception:  # noqa: BLE001 - no GPU driver: the launch itself cannot happen here
        pass


add_signature = {"x_ptr": "*fp16", "y_ptr": "*fp16", "output_ptr": "*fp16", "n_elements": "i32",
                 "BLOCK_SIZE": "constexpr"}
pointers = {(i,): [["tt.divisibility", 16]] for i in range(4)}
add = triton.compile(ASTSource(vector_add.add_kernel, add_signature, {(4,): 256}, pointers),
                     target=GPUTarget("cuda", 90, 32))
gather_signature = {"out_ptr": "*fp32", "src_ptr": "*fp32", "index_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"}
gather = triton.compile(ASTSource(gather_kernel, gather_signature, {(4,): 128}, pointers),
                        target=GPUTarget("cuda", 90, 32))

x, y = torch.randn(4096, dtype=torch.float16), torch.randn(4096, dtype=torch.float16)
for _ in range(5):
    launch(add, (16,), x, y, torch.empty_like(x), 4096, 256)
source = torch.randn(64, 100).t()  # a strided view
index = torch.arange(1000, dtype=torch.int32) % 697 + 3  # 3 to 699
launch(gather, (8, 1, 1), torch.empty(1000), source, index, 1000, 128)
