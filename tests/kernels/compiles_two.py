"""A program for `trace`: compiles two sample kernels with triton.compile, which needs no GPU."""

import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

from tritonscope.core.samples import samples_dir

sys.path.insert(0, str(samples_dir()))
import softmax  # noqa: E402
import vector_add  # noqa: E402

add_signature = {"x_ptr": "*fp16", "y_ptr": "*fp16", "output_ptr": "*fp16", "n_elements": "i32",
                 "BLOCK_SIZE": "constexpr"}
triton.compile(ASTSource(vector_add.add_kernel, add_signature, {"BLOCK_SIZE": 256}, {(3,): [["tt.divisibility", 16]]}),
               target=GPUTarget("cuda", 80, 32))
softmax_signature = {"output_ptr": "*fp32", "input_ptr": "*fp32", "input_row_stride": "i32",
                     "output_row_stride": "i32", "n_cols": "i32", "BLOCK_SIZE": "constexpr"}
triton.compile(ASTSource(softmax.softmax_kernel, softmax_signature, {"BLOCK_SIZE": 1024}, {}),
               target=GPUTarget("cuda", 90, 32))
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
