"""No silent waits (issue 43): on a terminal, after about two seconds, one status line says what
runs, for how long, where the user's code is, and that Ctrl-C stops it; piped output never holds it.

The command runs with its stderr on a pseudo-terminal, as a person sees it."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from cli_process import tritonscope

FAULTS = Path(__file__).parent / "kernels" / "faults"
STATUS = "Ctrl-C stops it"


def on_a_terminal(*args, until: str, wait: float = 120) -> tuple[int, str]:
    """Runs tritonscope with stderr on a terminal until `until` shows there, then presses Ctrl-C
    (SIGINT to it); (its exit code, all it wrote to the terminal). Its stdout is not a terminal, and
    not an unread pipe either, where a large document would block the command before it exits."""
    main, side = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    argv = [sys.executable, "-m", "tritonscope", *map(str, args)]
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=side, env=env)
    os.close(side)
    seen, deadline = b"", time.monotonic() + wait
    while until.encode() not in seen and time.monotonic() < deadline and child.poll() is None:
        seen += _read(main, 0.2)
    child.send_signal(signal.SIGINT)
    code = child.wait(timeout=60)
    seen += _read(main, 1.0)
    os.close(main)
    return code, seen.decode(errors="replace")


def _read(descriptor: int, wait: float) -> bytes:
    read = b""
    while select.select([descriptor], [], [], wait)[0]:
        try:
            chunk = os.read(descriptor, 65536)
        except OSError:  # the terminal's other side closed
            break
        if not chunk:
            break
        read, wait = read + chunk, 0.05
    return read


def last_line(written: str) -> str:
    """The status line as last drawn (each redraw starts with a carriage return)."""
    drawn = [part for part in written.split("\r") if STATUS in part]
    assert drawn, f"no status line: {written[-800:]!r}"
    return drawn[-1].replace("\x1b[K", "")


def test_a_kernel_file_looping_at_import_says_so_with_its_line():
    code, written = on_a_terminal("dump", FAULTS / "import_loop.py", "-t", "sm90", until=STATUS)
    line = last_line(written)
    assert code == 130, written[-800:]
    assert re.search(r"^importing import_loop\.py · \d+ s · at import_loop\.py:9 · Ctrl-C stops it$", line), line
    assert "\r\x1b[K" in written.split(STATUS)[-1], "the line is not cleared at the end"


def test_a_heuristic_that_never_returns_in_a_worker_says_where_it_is():
    """diff's variants run in workers: where the user's code is comes from the worker's stack."""
    args = ("diff", FAULTS / "hang_heuristic.py", "--target", "sm90", "--vary", "BLOCK_SIZE=128,256")
    code, written = on_a_terminal(*args, until="hang_heuristic.py:")
    line = last_line(written)
    assert code == 130
    assert line.startswith("compiling variants · ") and "at hang_heuristic.py:11" in line, line


def test_a_compile_says_its_kernel_target_and_stage():
    args = ("dump", "sample:fused_attention", "-t", "sm90", "--json")
    code, written = on_a_terminal(*args, until=STATUS, wait=300)
    if code == 0:  # compiled within two seconds: nothing to say, and nothing said
        assert STATUS not in written
        return
    line = last_line(written)
    assert re.search(r"^compiling attention_kernel for sm90, stage \d of \d \(\w+\) · \d+ s · Ctrl-C", line), line


def test_piped_stderr_holds_no_status_line():
    proc = tritonscope("dump", FAULTS / "import_loop.py", "-t", "sm90", "--timeout", "4", expect=2)
    assert "took longer than 4 s" in proc.stderr and "import_loop.py:9" in proc.stderr
    assert STATUS not in proc.stderr and "\r" not in proc.stderr and "\x1b" not in proc.stderr


def test_the_line_fits_the_terminal_and_keeps_time_place_and_ctrl_c(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    from tritonscope.cli.status import StatusLine
    from tritonscope.core.progress import Now

    now = Now("importing /a/very/long/folder/" + "x" * 200 + ".py", 12.4, None, lambda: "/home/u/k.py:14")
    line = StatusLine().line(now)
    assert len(line) <= 79 and line.endswith(" · 12 s · at k.py:14 · Ctrl-C stops it"), line
    assert line.startswith("importing xxx") and "…" in line


def test_a_long_message_wraps_between_words_on_a_terminal_and_stays_one_line_in_a_pipe():
    """Messages ran past the terminal's edge, broken mid-word by it (stderr was never wrapped); a pipe
    keeps each on one line, for grep."""
    args = ("explain", "sample:vector_add", "-t", "sm90", "--grid", "cdiv(n_elementz, BLOCK_SIZE), 2")
    main, side = pty.openpty()
    env = {**os.environ, "COLUMNS": "80", "TERM": "xterm"}
    argv = [sys.executable, "-m", "tritonscope", *args]
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=side, env=env)
    os.close(side)
    assert child.wait(timeout=120) == 2
    written = _read(main, 1.0).decode(errors="replace")
    os.close(main)
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in written.replace("\r", "").splitlines()]
    first = next(i for i, line in enumerate(lines) if line.startswith("error: --grid"))
    assert max(len(line) for line in lines) <= 80, lines
    assert re.match(r"^ {7}\S", lines[first + 1]) and lines[first + 2].startswith("hint: "), lines
    said = " ".join(line.strip() for line in lines[first : first + 2])
    piped = tritonscope(*args, expect=2, env={"COLUMNS": "80"}).stderr
    error = next(line for line in piped.splitlines() if line.startswith("error: --grid"))
    assert len(error) > 80 and said == error, (said, error)
