"""What a kernel file does (issue 14 and 27's fault suite, tests/fault_suite.py): code that never
returns, exits at import, sits in a package or a non-ASCII folder, or holds string literals
that look like locations."""

from __future__ import annotations

import pytest
from fault_suite import (
    _TRITON,
    BACKSLASHED,
    DEFAULTS_OF_DOUBLE,
    LAYOUT_2D,
    NON_ASCII,
    Row,
    check_row,
    copy_to,
    every_stage_maps_to,
    symlink_loop,
)

# fmt: off
ROWS = [
    # 6. Unbounded work: each gets a limit and a clear message.
    Row("dump sample:double --target sm90 --lines 1-100000000000", id="6-lines-huge-range", exit=2, timeout=20,
        says=(r"(?i)outside|at most|too (many|large)",)),
    Row(f"grid sample:double {DEFAULTS_OF_DOUBLE} --grid 100000000 --timeout 5", id="6-grid-huge-grid", exit=2,
        timeout=20, says=(r"(?i)time|too many|at most|limit",)),
    Row(f"layout '{LAYOUT_2D}' --shape 65536x65536", id="6-layout-huge-shape", exit=2, timeout=20,
        says=(r"(?i)too (large|big|many)|at most|limit|exceed",)),
    Row("diff sample:double --target sm90 --vary BLOCK_SIZE=256,512 --timeout nan", id="6-diff-timeout-nan", exit=2,
        says=(r"--timeout", r"nan")),
    Row("diff sample:double --target sm90 --vary BLOCK_SIZE=256,512 --timeout -1", id="6-diff-timeout-negative",
        exit=2, says=(r"--timeout",)),
    Row("diff {kernels}/hang_heuristic.py --target sm90 --vary BLOCK_SIZE=128,256 --timeout 3",
        id="6-diff-hung-variant-times-out", exit=1, timeout=20, says=(), shows=(r"(?i)timed out",)),
    Row("grid {kernels}/loop_interp.py --target sm90 --grid 1 --timeout 3", id="6-grid-kernel-loops", exit=2,
        timeout=20, says=(r"(?i)time",)),
    Row("dump {kernels}/import_loop.py --target sm90 --timeout 3", id="6-dump-import-loops", exit=2, timeout=20,
        says=(r"import_loop\.py", r"(?i)time")),
    Row("passes {kernels}/import_loop.py --target sm90 --timeout 3", id="6-passes-import-loops", exit=2, timeout=20,
        says=(r"import_loop\.py", r"(?i)time")),
    Row("diff {kernels}/import_loop.py --target sm90 --vary num_warps=4,8 --timeout 3", id="6-diff-import-loops",
        exit=2, timeout=20, says=(r"import_loop\.py", r"(?i)time")),
    Row("list {kernels}/import_loop.py --timeout 3", id="6-list-import-loops", exit=2, timeout=20,
        says=(r"import_loop\.py", r"(?i)time")),
    # 9. Location stripping leaves string literals alone.
    Row("dump {kernels}/device_print.py --target sm90 --stage ttir", id="9-loc-in-string-literal",
        shows=(r'tt\.print " value loc\(x\) =: "',)),  # Triton's own text: the literal, then ": "
    # 5. Non-ASCII folders and files: every command works there (Triton 3.6 on).
    *([] if _TRITON < (3, 6) else [
        Row(f"dump {NON_ASCII} --target sm90 --json", id="27-5-dump-chinese-folder", setup=(copy_to(NON_ASCII),),
            json=True, check=every_stage_maps_to(NON_ASCII)),
        Row(f"dump '{BACKSLASHED}' --target sm90 --json", id="file-name-with-backslashes",
            setup=(copy_to(BACKSLASHED),), json=True, check=every_stage_maps_to(BACKSLASHED)),
        Row(f"explain {NON_ASCII} --target sm90", id="27-5-explain-chinese-folder", setup=(copy_to(NON_ASCII),),
            shows=(r"double_kernel",)),
        Row(f"diff {NON_ASCII} --target sm90 --vary BLOCK_SIZE=256,512 --stage sass", id="27-5-diff-chinese-folder",
            setup=(copy_to(NON_ASCII),), shows=(r"BLOCK_SIZE",)),
        Row(f"passes {NON_ASCII} --target sm90", id="27-5-passes-chinese-folder", setup=(copy_to(NON_ASCII),),
            shows=(r"(?i)pass",)),
        Row(f"check {NON_ASCII} --target sm90 --budget spills=0", id="27-5-check-chinese-folder",
            setup=(copy_to(NON_ASCII),), shows=(r"PASS 项目/café/dé\.py",)),
        Row(f"report {NON_ASCII} --target sm90 -o 报告.html", id="27-5-report-chinese-folder",
            setup=(copy_to(NON_ASCII),), changes=("报告.html",), says=(r"报告\.html",)),
        Row(f"grid {NON_ASCII} --target sm90", id="27-5-grid-chinese-folder", setup=(copy_to(NON_ASCII),),
            shows=(r"output_ptr",)),
    ]),
    # 6. Kernel files inside packages, module references, missing modules (and issue 32, item 4).
    Row("dump {kernels}/kpkg/kernels/scale.py --target sm90 --stage ttir", id="27-6-file-in-package",
        shows=(r"@scale_kernel",)),
    Row("dump kpkg.kernels.scale:scale_kernel --target sm90 --stage ttir", id="27-6-module-reference",
        cwd="{kernels}", shows=(r"@scale_kernel",)),
    Row("list kpkg.kernels.scale", id="27-6-module-reference-list", cwd="{kernels}", shows=(r"scale_kernel",)),
    Row("dump scale:scale_kernel -c SCALE=2 -c BLOCK_SIZE=64 --target sm90 --stage ttir",
        id="r4-top-level-module-reference",
        cwd="{kernels}", shows=(r"@scale_kernel",)),
    Row("diff {kernels}/kpkg/kernels/scale.py --target sm90 --vary BLOCK_SIZE=128,256 --stage ttir",
        id="27-6-diff-file-in-package", shows=(r"BLOCK_SIZE=128",), forbid=(r"FAILED",)),
    Row("dump kpkg.kernels.absent:k --target sm90", id="27-6-module-reference-missing", cwd="{kernels}", exit=2,
        says=(r"kpkg\.kernels\.absent",)),
    Row("dump {kernels}/kpkg/kernels/needs_zmq.py --target sm90", id="27-6-missing-module-of-library", exit=2,
        says=(r"zmq_not_installed_anywhere", r"needs_zmq\.py:6", r"transport\.py:3")),
    Row("diff {kernels}/kpkg/kernels/needs_zmq.py --target sm90 --vary num_warps=4,8",
        id="27-6-missing-module-of-library-diff", exit=2, says=(r"zmq_not_installed_anywhere",)),
    Row("dump {kernels}/kpkg/kernels/cuda_ext.py --target sm90", id="32-4-missing-extension-is-a-missing-module",
        exit=2, says=(r"kpkg\.kernels\.cuda_utils", r"(?i)not installed"), forbid=(r"(?i)GPU",)),
    # 10. User code that never returns: past --timeout, the file and the line it was stuck on.
    Row("dump {kernels}/import_loop.py --target sm90 --timeout 3", id="27-10-import-loop-line", exit=2, timeout=30,
        says=(r"import_loop\.py:9",)),
    Row("dump {kernels}/hang_heuristic.py --target sm90 --timeout 3", id="27-10-heuristic-line", exit=2, timeout=30,
        says=(r"hang_heuristic\.py:11",)),
    Row("grid {kernels}/loop_interp.py --target sm90 --grid 1 --timeout 15", id="27-10-grid-loop-line", exit=2,
        timeout=60, says=(r"loop_interp\.py:1[01]",)),
    Row("diff {kernels}/hang_heuristic.py --target sm90 --vary BLOCK_SIZE=128,256 --timeout 10",
        id="27-10-vary-loop-line", exit=1, timeout=60, shows=(r"hang_heuristic\.py:11",)),
    # 11. os._exit() at import is said, not obeyed.
    Row("dump {kernels}/exits_at_import.py --target sm90", id="27-11-os-exit-at-import", exit=2,
        says=(r"os\._exit\(7\)", r"exits_at_import\.py:8")),
    Row("diff {kernels}/exits_at_import.py --target sm90 --vary num_warps=4,8", id="27-11-os-exit-at-import-diff",
        exit=2, says=(r"os\._exit\(7\)",)),
    Row("list {kernels}/exits_at_import.py", id="27-11-os-exit-at-import-list", exit=2, says=(r"os\._exit\(7\)",)),
    # Round 3's features as they are on main (issue 27's sweep): Gluon.
    Row("dump {kernels}/../gluon/layouts_basic.py -k row_sum -c ROWS=16 -c COLS=64 --target sm90 -w 3",
        id="27-sweep-gluon-warps-not-power-of-two", exit=2, says=(r"num_warps|--num-warps",)),
    Row("dump {kernels}/../gluon/layouts_basic.py -k row_sum -c ROWS=-16 -c COLS=64 --target sm90",
        id="27-sweep-gluon-negative-shape", exit=1, says=(r"layouts_basic\.py:\d+", r"power of 2")),
    Row("dump {kernels}/../gluon/hopper.py -k wgmma_tile -c BLOCK_M=64 -c BLOCK_N=64 -c BLOCK_K=64 --target sm80",
        id="27-sweep-gluon-hopper-kernel-on-sm80", exit=1, says=(r"hopper\.py:\d+",)),
    # Round 4's hostile sweep: a kernel file that is a symlink loop is the user's input, not a bug.
    Row("dump loop.py --target sm90", id="r4-kernel-file-symlink-loop", setup=(symlink_loop("{work}/loop.py"),),
        exit=2, says=(r"loop\.py: a symlink loop",)),
    *[Row(f"dump 'line\nbreak.py' --target {target} --stage ttir", id=f"r4-path-with-a-line-break-{target}",
          setup=(copy_to("line\nbreak.py"),), exit=2, says=(r"path has a line break", r"rename"))
      for target in ("sm90", "gfx942")],
]
# fmt: on


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_fault(row: Row, warm, tmp_path):
    check_row(row, warm, tmp_path)
