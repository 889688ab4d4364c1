"""A program for `trace` on a machine without a GPU: it compiles its step's kernels for sm90 with
triton.compile (as a launch would). `--after` is the program after an edit: add_kernel's block size
doubled, relu_kernel no longer run. `--target sm80` compiles for the A100 instead."""

import argparse
import os
import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import program_kernels as k  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--after", action="store_true")
parser.add_argument("--target", default="sm90")
options = parser.parse_args()
target = GPUTarget("cuda", int(options.target[2:]), 32)
ALIGNED = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}


def compile_kernel(fn, signature, constants, attrs=None):
    triton.compile(
        ASTSource(fn, {**signature, **dict.fromkeys(constants, "constexpr")}, constants, attrs or {}), target=target
    )


elementwise = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
compile_kernel(k.scale_kernel, {**elementwise, "factor": "fp32"}, {"BLOCK": 1024}, ALIGNED)
add = {"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32"}
compile_kernel(k.add_kernel, add, {"BLOCK": 512 if options.after else 256}, ALIGNED)
compile_kernel(
    k.row_sum_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "stride": "i32", "n_cols": "i32"}, {"BLOCK": 128}
)
if not options.after:
    compile_kernel(k.relu_kernel, elementwise, {"BLOCK": 1024}, ALIGNED)
