"""Signals and processes (issue 14 and 27's fault suite, tests/fault_suite.py): every child dies with
its parent, -j is capped at the cores, and a killed run's temporary files go."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from fault_suite import (
    INT,
    TERM,
    Env,
    Row,
    Run,
    at_most_one_worker_per_core,
    check_row,
    child_started,
    ptxas_running,
    run,
    user_files,
)

# fmt: off
ROWS = [
    # 5. Signals: every child dies with its parent, temporary folders removed.
    Row("diff {kernels}/hang_heuristic.py --target sm90 --vary BLOCK_SIZE=128,256", id="5-diff-sigterm",
        signal=TERM, ready=child_started),
    Row("diff {kernels}/hang_heuristic.py --target sm90 --vary BLOCK_SIZE=128,256", id="5-diff-sigint",
        signal=INT, ready=child_started),
    Row("grid {kernels}/loop_interp.py --target sm90 --grid 1", id="5-grid-sigterm", signal=TERM, ready=child_started),
    Row("grid {kernels}/loop_interp.py --target sm90 --grid 1", id="5-grid-sigint", signal=INT, ready=child_started),
    Row("passes {kernels}/hang_heuristic.py --target sm90", id="5-passes-sigterm", signal=TERM, ready=child_started),
    Row("passes {kernels}/hang_heuristic.py --target sm90", id="5-passes-sigint", signal=INT, ready=child_started),
    # 7. -j capped at the cores.
    Row("diff sample:double --target sm90 --vary BLOCK_SIZE=64,128,256,512,1024,2048 --stage ttgir -j 64",
        id="7-diff-jobs-capped", count_processes=True, says=(r"(?i)\b(cores?|cpus?)\b",),
        check=at_most_one_worker_per_core),
    # 18. Ctrl-C or SIGTERM while ptxas runs (a cold cache): its .ptx and .log files go with the run.
    *[Row(f"{cmd} sample:fused_attention --target sm90", id=f"27-18-{cmd.split()[0]}-{name}-while-ptxas-runs",
          env={"TRITON_CACHE_DIR": "{kc}"}, signal=sig, ready=ptxas_running, timeout=120)
      for cmd in ("check --budget spills=0", "diff --vary num_warps=4,8 --stage sass")
      for name, sig in (("sigint", INT), ("sigterm", TERM))],
]
# fmt: on


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_fault(row: Row, warm, tmp_path):
    check_row(row, warm, tmp_path)


def dead_pid() -> int:
    """The id of a process that has ended (and been reaped): no process has it now."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_killed_run_s_temporary_folder_is_removed_by_the_next_run(warm, tmp_path):
    """SIGKILL leaves the run's TMPDIR folder (ptxas's files in it); the next run removes it, and
    nothing else: not the folder of a run still alive, not a user's file of a similar name."""
    env = Env(tmp_path, "")
    user_files(tmp_path, warm[2])
    tmp = tmp_path / "tmp"
    abandoned, alive = tmp / f"tritonscope-run.{dead_pid()}.k2x9q7wa", tmp / f"tritonscope-run.{os.getpid()}.x"
    for folder in (abandoned, alive, tmp / "tritonscope-run.notes"):
        folder.mkdir()
        (folder / "tmpabc.ptx").write_text("// ptx\n")
    (tmp / "tritonscope-run.1.txt").write_text("a user's file\n")
    result, survivors = run(env, Run("dump sample:double --target sm90 --stage ttir"))
    assert result.code == 0 and not survivors, result.err
    left = sorted(p.name for p in tmp.iterdir())
    assert left == sorted([alive.name, "tritonscope-run.notes", "tritonscope-run.1.txt"])
