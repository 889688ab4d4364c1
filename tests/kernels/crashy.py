"""A kernel whose heuristic misbehaves for some values: for the diff isolation tests."""

import ctypes
import os
import time

import triton
import triton.language as tl


def _block(args):
    if args["n"] == 13:
        os.abort()  # takes the whole process down with SIGABRT
    if args["n"] == 11:
        ctypes.string_at(0)  # a segfault
    if args["n"] == 7:
        time.sleep(600)  # hangs
    return 128


@triton.heuristics(values={"BLOCK": _block})
@triton.jit
def crashy_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
