"""fit's speed, measured in one run: the notes' autotuned matmul (sample:matmul_autotune, 8 configs) x
the 8 default targets, 64 compiles.

1. `tritonscope fit` at -j 1 against the sum of the same 64 `triton.compile` calls made one after another
   in one bare process (target: at most 1.3x), each with a cold Triton cache. fit also reads each
   binary's resource listing (cuobjdump) and judges it, which the bare compiles do not.
2. fit at -j 1 over -j 2 (it scales with the cores: 2 here).
3. `fit --rank` (every config's launch time estimated on each target's GPU) against `fit`, at -j 1 and
   -j 2 (target: at most 1.1x): the estimates are made in fit's own process while the workers compile.

One run of each (about 10 minutes on 2 cores): timings on a shared machine move by 10% from run to run.
The package is byte-compiled first, as `pip install` does.

Run: python benchmarks/fit.py
"""

from __future__ import annotations

import compileall
import os
import sys
from pathlib import Path

from sweep import cold  # a command timed with a cold Triton cache, as the sweep benchmark times it

import tritonscope

FIT = [sys.executable, "-m", "tritonscope", "fit", "sample:matmul_autotune", "--json"]

# The same 64 compiles, bare: specialized by hand as fit specializes the sample's defaults (M = N = K =
# 4096, unit strides the constant 1, pointers and the other integers divisible by 16).
BARE = """
import importlib.util, time
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tritonscope.app.fit import DEFAULT_TARGETS
from tritonscope.core.samples import samples_dir
from tritonscope.core.targets import TARGETS

spec = importlib.util.spec_from_file_location("matmul_autotune", samples_dir() / "matmul_autotune.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
kernel = module.matmul_kernel.fn
signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
             "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
             "stride_cm": "i32", "stride_cn": "constexpr", "BLOCK_SIZE_M": "constexpr",
             "BLOCK_SIZE_N": "constexpr", "BLOCK_SIZE_K": "constexpr", "GROUP_SIZE_M": "constexpr"}
seconds = 0.0
for name in DEFAULT_TARGETS:
    target = TARGETS[name]
    gpu = GPUTarget(target.backend, target.arch, target.warp_size)
    attrs = {(i,): [["tt.divisibility", 16]] for i in (0, 1, 2, 3, 4, 5, 6, 8, 10)}
    for config in module.matmul_kernel.configs:
        constants = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, **config.kwargs}
        started = time.perf_counter()
        compiled = triton.compile(ASTSource(kernel, signature, constants, attrs), target=gpu,
                                  options={"num_warps": config.num_warps, "num_stages": config.num_stages})
        seconds += time.perf_counter() - started
        assert compiled.asm[target.vendor.binary]
print(seconds)
"""


def main() -> None:
    compileall.compile_dir(Path(tritonscope.__file__).parent, quiet=1)
    bare_wall, out = cold([sys.executable, "-c", BARE])
    bare = float(out.strip().splitlines()[-1])
    one = cold([*FIT, "-j", "1"])[0]
    two = cold([*FIT, "-j", "2"])[0]
    ranked_one = cold([*FIT, "--rank", "-j", "1"])[0]
    ranked_two = cold([*FIT, "--rank", "-j", "2"])[0]
    print(f"cores: {os.cpu_count()}")
    print(f"bare triton.compile x 64, one process: {bare:6.1f} s compiling ({bare_wall:.1f} s with start-up)")
    print(f"fit, 8 configs x 8 targets, -j 1:      {one:6.1f} s   {one / bare:.2f}x the bare compiles (target <= 1.3x)")
    print(f"fit, 8 configs x 8 targets, -j 2:      {two:6.1f} s   -j 1 / -j 2: {one / two:.2f}x")
    print(
        f"fit --rank, -j 1:                      {ranked_one:6.1f} s   {ranked_one / one:.2f}x fit's (target <= 1.1x)"
    )
    print(
        f"fit --rank, -j 2:                      {ranked_two:6.1f} s   {ranked_two / two:.2f}x fit's (target <= 1.1x)"
    )


if __name__ == "__main__":
    main()
