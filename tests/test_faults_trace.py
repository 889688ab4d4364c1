"""trace and the programs it runs (issue 27's fault suite, tests/fault_suite.py): a program's own
death passed on, a signal to trace ending the program's whole group, a target it does not know."""

from __future__ import annotations

import signal

import pytest
from fault_suite import (
    INT,
    TERM,
    Row,
    check_row,
    file_appeared,
)

# fmt: off
ROWS = [
    # 21. Smaller ones: trace passes a signal's death on as a shell does.
    Row("trace -o capk -- {py} -c 'import os, signal; os.kill(os.getpid(), signal.SIGKILL)'",
        id="27-21-trace-program-sigkill", exit=137, changes=("capk",)),
    Row("trace -o capk -- {py} -c 'import os, signal; os.kill(os.getpid(), signal.SIGTERM)'",
        id="27-21-trace-program-sigterm", exit=143, changes=("capk",)),
    # 18. A signal to trace ends the traced program and the programs it started (the terminal's group).
    *[Row("trace -o capg -- {py} {kernels}/spawns_child.py", id=f"27-18-trace-{name}-program-s-child", signal=sig,
          ready=file_appeared("started"), changes=("capg", "started"))
      for name, sig in (("sigterm", TERM), ("sighup", signal.SIGHUP), ("sigint", INT))],
    # Round 3's features as they are on main (issue 27's sweep): trace --target.
    Row("trace --target sm999 -o capt -- {py} -c pass", id="27-sweep-trace-target-unknown", exit=2,
        says=(r"sm999",)),
    Row("trace --target sm90 -o capt -- {py} {kernels}/exits_at_import.py", id="27-sweep-trace-target-program-exits",
        exit=7, changes=("capt",)),
]
# fmt: on


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_fault(row: Row, warm, tmp_path):
    check_row(row, warm, tmp_path)
