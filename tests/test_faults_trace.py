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


PROGRAM_THEN_WAITS = """
import pathlib, time, torch, triton, triton.language as tl

@triton.jit
def double(x, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(x + o, tl.load(x + o, mask=o < n) * 2, mask=o < n)

x = torch.ones(64, device="cuda")
for i in range(3):
    double[(1,)](x, 64, BLOCK=64 * 2**i)
pathlib.Path("launched").write_text("3\\n")
time.sleep(300)  # a training loop the user ends with Ctrl-C
"""


def test_ctrl_c_keeps_what_the_program_recorded_before_it(tmp_path):
    """Ctrl-C in the terminal (SIGINT to trace and the program, one group) ends a long run: the
    capture keeps the compiles and launches made before it, says so, and trace exits 130."""
    import json
    import os
    import subprocess
    import sys
    import time

    (tmp_path / "prog.py").write_text(PROGRAM_THEN_WAITS)
    out = tmp_path / "cap"
    command = [sys.executable, "-m", "tritonscope", "trace", "--target", "sm90", "--json", "-o", str(out)]
    command += ["--launches", "10", "--", sys.executable, "prog.py"]
    proc = subprocess.Popen(
        command, cwd=tmp_path, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    started = time.monotonic()
    while not (tmp_path / "launched").exists():
        assert proc.poll() is None and time.monotonic() - started < 300, proc.communicate()
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    said = " ".join(stderr.split())
    assert proc.returncode == 130, stderr[-2000:]
    assert f"Ctrl-C stopped the program; {out} keeps what it recorded before" in said
    assert "captured 3 compiles of 1 kernel into" in said and "recorded 3 launches" in said
    document = json.loads(stdout)
    assert document["interrupted"] is True and document["kernels"] == ["double"] and document["launches"] == 3
    listed = subprocess.run(
        [sys.executable, "-m", "tritonscope", "cache", "list", str(out), "--json"], capture_output=True, text=True
    )
    kernels = json.loads(listed.stdout)["kernels"]  # each compile with its launch: BLOCK, its third argument
    blocks = sorted(k["launches"][0]["args"][2]["value"] for k in kernels)
    assert blocks == [64, 128, 256]


def test_ctrl_c_while_the_program_starts_says_so_in_one_line(tmp_path):
    """Ctrl-C while the hook makes the simulated GPU (it imports torch) printed "Fatal Python error:
    init_import_site" and a page of traceback; now one line, exit 130, the earlier capture kept."""
    import os
    import subprocess
    import sys
    import time

    (tmp_path / "prog.py").write_text("import time\nwhile True:\n    time.sleep(1)\n")
    out = tmp_path / "cap"
    (tmp_path / "first.py").write_text("print('first')\n")
    subprocess.run([sys.executable, "-m", "tritonscope", "trace", "-o", str(out), "--", sys.executable, "first.py"],
                   cwd=tmp_path, check=True, capture_output=True)  # fmt: skip
    (out / "kept.txt").write_text("an earlier capture")
    command = [sys.executable, "-m", "tritonscope", "trace", "--target", "sm90", "--force", "-o", str(out)]
    command += ["--", sys.executable, "prog.py"]
    proc = subprocess.Popen(
        command, cwd=tmp_path, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    time.sleep(1.5)  # tritonscope has started the program; its hook is importing torch
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr[-2000:]
    assert "Fatal Python error" not in stderr, stderr[-2000:]
    # on a quick machine the hook is done by then and the program's own sleep takes the KeyboardInterrupt:
    # its traceback is the program's, as without tritonscope; any other is the hook's
    own = "Traceback" in stderr and 'prog.py", line 3' in stderr
    assert "Traceback" not in stderr or own, stderr[-2000:]
    assert "Ctrl-C stopped the program" in stderr
    assert (out / "kept.txt").read_text() == "an earlier capture"
