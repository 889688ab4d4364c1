"""Kernels behind a library's own wrappers: a subclass of Triton's Autotuner (as libraries that cache
their tuning write), a subclass of Heuristics, and a libentry-style launcher object that is no Triton
class and holds the kernel in `.fn`, alone and around Triton's own wrappers."""

import triton
import triton.language as tl
from triton.runtime.autotuner import Autotuner, Heuristics


class CachingAutotuner(Autotuner):
    def __init__(self, fn, configs, key):
        super().__init__(fn, fn.arg_names, configs, key, reset_to_zero=None, restore_value=None)
        self.tuned_on_disk = {}


class LoggingHeuristics(Heuristics):
    pass


class LibEntry:
    def __init__(self, fn):
        self.fn = fn
        self.arg_names = fn.arg_names

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.fn[grid](*args, **kwargs)


def cached_autotune(configs, key):
    return lambda fn: CachingAutotuner(fn, configs, key)


def logging_heuristics(values):
    return lambda fn: LoggingHeuristics(fn, fn.arg_names, values)


def libentry():
    return LibEntry


@cached_autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=2), triton.Config({"BLOCK": 512})], key=["n"])
@triton.jit
def tuned_scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2.0, mask=mask)


@logging_heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"])})
@triton.jit
def heuristic_scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 3.0, mask=mask)


@libentry()
@triton.jit
def entry_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr = 1024):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


@libentry()
@libentry()
@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=8)], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def nested_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) + 1.0)
    else:
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)
