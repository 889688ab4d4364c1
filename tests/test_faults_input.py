"""What the user types (issue 14 and 27's fault suite, tests/fault_suite.py): flags and values out of
range, layouts Triton would assert on, and the machine's or the user's problems as a clear exit 2."""

from __future__ import annotations

import re

import pytest
from cli_process import tritonscope
from fault_suite import (
    _TRITON,
    LAYOUT_2D,
    MMA_ODD,
    Row,
    cache_at,
    check_row,
    copy_to,
    every_stage_maps_to,
    folder,
    metadata,
    regular_file,
)

# fmt: off
ROWS = [
    # 3. grid with 1 to 4 programs.
    Row("grid sample:vector_add -a n_elements=4096 --target sm90", id="3-grid-4-programs",
        shows=(r"output_ptr\[3072:4096\]",)),
    Row("grid sample:double -a n_elements=1000 --target sm90", id="3-grid-1-program", shows=(r"output_ptr\[0:1000\]",)),
    # 4. layout: shapes and fields Triton asserts on.
    Row(f"layout '{LAYOUT_2D}' --shape 64", id="4-layout-rank-1-of-2", exit=2, says=(r"(?i)rank|dimension|2-d",)),
    Row(f"layout '{LAYOUT_2D}' --shape 64x64x64", id="4-layout-rank-3-of-2", exit=2, says=(r"(?i)rank|dimension|2-d",)),
    Row(f"layout '{MMA_ODD}' --shape 64x64", id="4-layout-odd-instrShape", exit=2, says=(r"instrShape",)),
    # 10. Values beyond 64 bits.
    Row("dump sample:double --target sm90 -a n_elements=18446744073709551616", id="10-value-above-u64", exit=2,
        says=(r"n_elements", r"(?i)out of range|too (large|big)|does not fit|overflow|beyond|64.bit")),
    Row("dump sample:double --target sm90 -a n_elements=-9223372036854775809", id="10-value-below-i64", exit=2,
        says=(r"n_elements", r"(?i)out of range|too (large|big|small)|does not fit|overflow|beyond|64.bit")),
    # 12. A user's or the machine's problem is a clear exit 2, not an internal error.
    Row("dump sample:double --target sm90 -o ro/out", id="12-out-read-only-folder", setup=(folder("{work}/ro", 0o555),),
        exit=2, says=(r"ro/out|/ro\b", r"(?i)permission|read-only|not writable")),
    Row("dump sample:double --target sm90 -o afile/out", id="12-out-under-regular-file",
        setup=(regular_file("{work}/afile"),), exit=2, says=(r"afile",)),
    Row("report sample:double --target sm90 -o afile/r.html", id="12-report-under-regular-file",
        setup=(regular_file("{work}/afile"),), exit=2, says=(r"afile",)),
    Row("dump sample:double --target sm90 -o out", id="12-out-disk-full", fsize=16384, exit=2,
        says=(r"\bout\b", r"(?i)file too large|no space|disk")),
    Row("dump sample:double --target sm90", id="12-tmp-disk-full", fsize=4096, exit=2,
        says=(r"(?i)file too large|no space|disk",)),
    Row("dump sample:double --target sm90 -o 'o[/x]'", id="12-markup-in-out-path", changes=("o[",),
        says=(r"o\[/x\]",)),
    Row("report sample:double --target sm90 -o 'r[/x].html'", id="12-markup-in-report-path", changes=("r[",),
        says=(r"r\[/x\]\.html",)),
    # `[/x]` is a string constexpr (issue 13's rule); its variant fails to compile (exit 1) and the
    # table shows the value as typed, not eaten as rich markup.
    Row("diff sample:double --target sm90 --vary 'BLOCK_SIZE=[/x],256'", id="12-markup-in-vary-value", exit=1,
        shows=(r"BLOCK_SIZE=\[/x\]",)),
    Row("list {kernels}/markup_defaults.py", id="12-markup-in-defaults", shows=(r"\[/x\]",)),
    Row("dump {cache}/:double_kernel --stage ttir", id="12-markup-in-cache-metadata",
        setup=(metadata(lambda d: {**d, "triton_version": "3.6.0[/x]"}),), shows=(r"3\.6\.0\[/x\]",)),
    Row("cache list 'c[/x]'", id="12-markup-in-cache-path", setup=(cache_at("c[/x]"),), shows=(r"c\[/x\]",)),
    Row("dump sample:double --target sm80 --num-ctas 2", id="12-num-ctas-on-sm80", exit=2,
        says=(r"--num-ctas|num_ctas", r"sm90")),
    Row("dump {kernels}/heuristic_object.py --target sm90", id="12-heuristic-returns-object", exit=2,
        says=(r"BLOCK_SIZE", r"(?i)heuristic")),
    Row("dump {kernels}/accented_text.py --target sm90", id="12-ascii-stdout-nonascii-kernel",
        env={"PYTHONIOENCODING": "ascii"}, shows=(r"text_kernel",)),
    Row("dump sample:double --target sm90 --json", id="12-stdout-closed-json", stdout="closed", exit=2,
        says=(r"(?i)stdout|standard output",)),
    Row("dump sample:double --target sm90", id="12-stdout-closed", stdout="closed", exit=2,
        says=(r"(?i)stdout|standard output",)),
    # 15. Clear messages.
    # Older ptxas refuse a non-ASCII path in the PTX: it is given an ASCII spelling (issue 27, item 5;
    # Triton 3.5 has no hook to do that in, and says what to do).
    Row("dump src/dé.py --target sm90", id="15-non-ascii-path", setup=(copy_to("src/dé.py"),), exit=2,
        says=(r"dé\.py", r"(?i)non-ascii"))
    if _TRITON < (3, 6) else
    Row("dump src/dé.py --target sm90 --json", id="15-non-ascii-path", setup=(copy_to("src/dé.py"),), json=True,
        check=every_stage_maps_to("src/dé.py")),
    Row("dump {kernels}/accented_name.py --target sm90", id="15-non-ascii-kernel-name", exit=1,
        says=(r"café_kernel", r"(?i)ascii")),
    Row("dump sample:double --target sm90 --num-ctas 3", id="15-num-ctas-3", exit=2,
        says=(r"--num-ctas|num_ctas", r"(?i)power of (2|two)"), forbid=(r"module \{", r"mlir_reproducer")),
    Row("dump sample:double --target sm90", id="15-pipe-to-head", stdout="head", forbid=(r"(?i)broken ?pipe",)),
    Row("dump sample:double --target sm90 --json", id="15-json-pipe-closed", stdout="gone",
        forbid=(r"(?i)broken ?pipe",)),
    # 13. layout: a wrong number is named before Triton's bindings see it.
    Row(f"layout '{LAYOUT_2D}' --shape -64x64", id="27-13-layout-negative-shape", exit=2, says=(r"-64",)),
    Row(f"layout '{LAYOUT_2D.replace('[1, 4]', '[1, -4]')}' --shape 64x64", id="27-13-layout-negative-field", exit=2,
        says=(r"sizePerThread", r"-4"), forbid=(r"incompatible function arguments",)),
    Row(f"layout '{LAYOUT_2D.replace('[1, 4]', '[1, 99999999999]')}' --shape 64x64", id="27-13-layout-huge-field",
        exit=2, says=(r"sizePerThread", r"99999999999"), forbid=(r"incompatible function arguments",)),
    Row(f"layout '{LAYOUT_2D.replace('order = [1, 0]', 'order = [1, 1]')}' --shape 64x64", id="27-13-layout-bad-order",
        exit=2, says=(r"order",)),
    Row(f"layout '#ttg.slice<{{dim = 7, parent = {LAYOUT_2D}}}>' --shape 64", id="27-13-layout-slice-dim-too-big",
        exit=2, says=(r"dim = 7",)),
    # 14. A value for a pointer is a usage error naming the pointer and the forms a pointer takes.
    Row("dump sample:double --target sm90 -a x_ptr=4096", id="27-14-number-for-pointer", exit=2,
        says=(r"x_ptr", r"\*fp16", r"None"), forbid=(r"does not compile",)),
    Row("dump sample:double --target sm90 -a x_ptr=fp32", id="27-14-scalar-type-for-pointer", exit=2,
        says=(r"x_ptr", r"\*fp16")),
    Row("dump sample:double --target sm90 -a x_ptr=true", id="27-14-bool-for-pointer", exit=2, says=(r"x_ptr",)),
    # ptxas refusing a low --maxnreg is ptxas's own line in every command that compiles, not Triton's
    # wrapper and its 900-line PTX reproducer (issue 27 item 21).
    *[Row(f"{cmd} sample:matmul --target sm90 --maxnreg 24", id=f"27-21-maxnreg-refused-{cmd.split()[0]}", exit=1,
          timeout=180, forbid=(r"Generated by LLVM", r"Repro command", r"reproducer", r"\.version \d"),
          **{where: (r"ptxas(-blackwell)? fatal : \(C7602\) Insufficient registers \(24\)", r"matmul_kernel")})
      for cmd, where in (("explain", "says"), ("dump", "says"), ("check --budget spills=0", "shows"),
                         ("diff --vary num_warps=4,8 --stage ptx", "shows"))],
    # Round 4's hostile sweep: nonsense values refused before any compile, as --target's are.
    Row("diff sample:double --vary target=sm90,bogus --stage ttir", id="r4-diff-vary-unknown-target", exit=2,
        says=(r"unknown target 'bogus'",), forbid=(r"\[0\]",)),
    Row("dump sample:double --target sm90 -s -1", id="r4-negative-num-stages", exit=2,
        says=(r"num_stages is 0 or more",)),
    Row("dump sample:double --target sm90 --maxnreg 0", id="r4-maxnreg-zero", exit=2, says=(r"--maxnreg 0",)),
    Row("fit sample:double --targets ''", id="r4-fit-empty-targets", exit=2, says=(r"--targets is empty",)),
    Row("dump sample:vector_add --target sm90 -c 'BLOCK_SIZE=1<<10'", id="r4-constexpr-expression-read-as-string",
        exit=1, says=(r"vector_add\.py:\d+", r"BLOCK_SIZE='1<<10' was read as a string")),
    *[Row(f"{cmd} ''", id=f"r4-empty-file-argument-{cmd}", exit=2, says=(r"FILE is empty \(an unset variable",))
      for cmd in ("dump", "list")],
    Row("reproduce k.py", id="r4-reproduce-a-file-not-a-compiled-kernel", exit=2,
        says=(r"k\.py: expected DIR/:KERNEL", r"cache list DIR")),
]
# fmt: on


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_fault(row: Row, warm, tmp_path):
    check_row(row, warm, tmp_path)


def test_a_folder_of_compiled_kernels_given_for_a_kernel_names_them(tmp_path):
    """`dump DIR/` and `explain DIR/` on a capture (or Triton cache) list its `DIR/:NAME`s, as `explore
    DIR/` does; a folder of no kernels is no kernel file."""
    cache = tmp_path / "cache"
    tritonscope("dump", "sample:vector_add", "--target", "sm90", "--json", env={"TRITON_CACHE_DIR": str(cache)})
    for command in ("dump", "explain"):
        said = tritonscope(command, f"{cache}/", expect=2).stderr
        assert f"{cache}/ is a folder of 1 kernel (a capture or a Triton cache)" in said, said
        assert f"give one of them as {cache}/:NAME ({cache}/:add_kernel)" in said
        assert f"tritonscope cache list {cache}/ lists them" in said
    plain = tmp_path / "plain"
    plain.mkdir()
    assert "is a directory; give a Python file with Triton kernels" in tritonscope("dump", plain, expect=2).stderr
    # `list DIR/` lists a capture's compiled kernels, as `cache list DIR/` (it refused it, h19b); not a plain folder
    listed = tritonscope("list", f"{cache}/").stdout
    assert listed.startswith(f"1 compiled kernel in {cache}") and "add_kernel" in listed
    assert "is a directory; give a Python file" in tritonscope("list", plain, expect=2).stderr


def _open_files_lowered(soft: int):
    """A child's soft limit of open files lowered (`ulimit -Sn`), its hard limit kept."""
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_too_few_open_files_is_exit_2_naming_the_limit_and_what_to_raise():
    """`ulimit -n 14`, then a sweep: not each variant `FAILED: OSError`, exit 1 (as if the kernel failed),
    nor "cannot use: Too many open files": exit 2 naming the limit and what to raise it to."""
    import resource
    import subprocess
    import sys

    from cli_process import ENV

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    argv = [sys.executable, "-m", "tritonscope", "diff", "sample:vector_add", "--target", "sm90"]
    argv += ["--vary", "BLOCK_SIZE=128,256,512"]
    run = subprocess.run(argv, capture_output=True, text=True, env=ENV, preexec_fn=_open_files_lowered(14), timeout=300)
    assert run.returncode == 2, run.stderr
    assert "this shell lets a process open 14 at once (ulimit -n 14)" in run.stderr, run.stderr
    raise_to = 1024 if hard == resource.RLIM_INFINITY else hard
    assert f"hint: raise the limit and run again: `ulimit -n {raise_to}`" in run.stderr
    assert "FAILED" not in run.stdout + run.stderr and "Traceback" not in run.stderr


LIMITED_TASK = """import os, resource
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + 2, hard))
held = [open(os.devnull) for _ in range(8)]  # a compile's files and ptxas's pipes, as many
"""


def test_a_worker_out_of_open_files_is_the_runs_limit_not_a_failed_task(tmp_path):
    """A task that meets the open-files limit in its worker: the run stops with the limit said (exit 2),
    since every other task would meet it too; not one more `OSError` task failure."""
    import runpy

    from tritonscope.core.limits import OpenFilesLimit
    from tritonscope.isolate import pool, task

    script = tmp_path / "limited.py"
    script.write_text(LIMITED_TASK)
    with pool(jobs=1, timeout=60) as workers, pytest.raises(OpenFilesLimit) as raised:
        workers.run([task(runpy.run_path, str(script))])
    assert raised.value.exit_code == 2 and "too many open files" in raised.value.message
    said = re.search(r"this shell lets a process open (\d+) at once", raised.value.message)
    assert said and int(said[1]) < 64, raised.value.message  # the worker's own limit, as it met it
    assert "ulimit -n" in (raised.value.hint or "")
