"""Capture diff speed, measured in one run: `tritonscope diff before/ after/` of two captures of
a 50-kernel program (the second with two kernels changed), when nothing needs compiling.

1. Wall time of the diff with a cold nvdisasm memo (a fresh TRITON_CACHE_DIR: every binary is
   disassembled), at -j 1 and at -j 2; the target is under 10 s at -j 2 on a 2-core machine.
2. The same with a warm memo (a second run), and the ratios between them.
3. A pair where every binary differs (the same program traced for sm90 and for sm80): 100
   compiles read with their line information, at -j 1 and -j 2.

The captures are made first with `tritonscope trace` (their compiles are not timed).

Run: python benchmarks/capture_diff.py
"""

from __future__ import annotations

import compileall
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tritonscope

KERNELS = Path(__file__).resolve().parent.parent / "tests" / "kernels"
# 50 compiles: 4 kernels, each at several block sizes and element types; CHANGED names the two
# whose block size the "after" program doubles.
PROGRAM = """
import sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
sys.path.insert(0, {kernels!r})
import program_kernels as k

after = "--after" in sys.argv
target = GPUTarget("cuda", 80 if "--sm80" in sys.argv else 90, 32)
elementwise = {{"x_ptr": "*{{t}}", "out_ptr": "*{{t}}", "n": "i32"}}
jobs = []
for t in ("fp32", "fp16", "bf16"):
    for block in (64, 128, 256, 512, 1024):
        sig = {{k2: v.format(t=t) for k2, v in elementwise.items()}}
        jobs.append((k.scale_kernel, {{**sig, "factor": "fp32"}}, block))
        jobs.append((k.relu_kernel, sig, block))
        jobs.append((k.add_kernel, {{**sig, "y_ptr": "*" + t}}, block))
    for block in (64, 128, 256):
        rows = {{"x_ptr": "*" + t, "out_ptr": "*" + t, "stride": "i32", "n_cols": "i32"}}
        jobs.append((k.row_sum_kernel, rows, block))
jobs = jobs[:50]
for index, (fn, sig, block) in enumerate(jobs):
    if after and index in (3, 17):
        block *= 2
    signature = dict(sig)
    if fn is k.add_kernel:
        signature = {{"x_ptr": sig["x_ptr"], "y_ptr": sig["y_ptr"], "out_ptr": sig["out_ptr"], "n": "i32"}}
    signature["BLOCK"] = "constexpr"
    triton.compile(ASTSource(fn, signature, {{"BLOCK": block}}, {{}}), target=target)
"""


def run(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    compileall.compile_dir(Path(tritonscope.__file__).parent, quiet=1)
    root = Path(tempfile.mkdtemp(prefix="capdiff-bench-"))
    program = root / "program.py"
    program.write_text(PROGRAM.format(kernels=str(KERNELS)))
    env = {**os.environ, "TRITON_CACHE_DIR": str(root / "triton-cache")}
    tool = [sys.executable, "-m", "tritonscope"]
    for side, flags in (("before", []), ("after", ["--after"]), ("sm80", ["--sm80"])):
        subprocess.run(
            [*tool, "trace", "-o", str(root / side), "--", sys.executable, str(program), *flags],
            env=env,
            check=True,
            capture_output=True,
        )
    counted = len(list((root / "before" / "cache").iterdir()))
    diff = [*tool, "diff", str(root / "before"), str(root / "after"), "--json"]
    times = {}
    for jobs in ("1", "2"):
        cold = {**env, "TRITON_CACHE_DIR": str(root / f"memo-{jobs}")}
        times[f"cold -j {jobs}"] = run([*diff, "-j", jobs], cold)
        times[f"warm -j {jobs}"] = run([*diff, "-j", jobs], cold)
    every = [*tool, "diff", str(root / "before"), str(root / "sm80"), "--json"]
    for jobs in ("1", "2"):  # every binary differs: 100 compiles read, each with its line information
        times[f"all changed, cold -j {jobs}"] = run(
            [*every, "-j", jobs], {**env, "TRITON_CACHE_DIR": str(root / f"all-{jobs}")}
        )
    print(f"capture pair: {counted} kernel compiles each, 2 changed; {os.cpu_count()} cores")
    for name, seconds in times.items():
        print(f"  diff, {name}: {seconds:.2f} s ({seconds / 10:.2f} of the 10 s budget)")
    print(f"  -j 1 / -j 2, cold: {times['cold -j 1'] / times['cold -j 2']:.2f}x")
    print(f"  cold / warm, -j 2: {times['cold -j 2'] / times['warm -j 2']:.2f}x")
    print(f"  all changed, -j 1 / -j 2: {times['all changed, cold -j 1'] / times['all changed, cold -j 2']:.2f}x")


if __name__ == "__main__":
    main()
