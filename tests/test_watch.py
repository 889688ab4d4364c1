"""`dump --watch` and `explain --watch` (issue 39): the output drawn again on every save of the kernel
file, a failed compile said and the watch going on, Ctrl-C ending it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _until(path: Path, text: str, count: int = 1, seconds: float = 180) -> str:
    deadline = time.monotonic() + seconds
    while (found := path.read_text(errors="replace")).count(text) < count:
        assert time.monotonic() < deadline, f"{text!r} x{count} never came:\n{found[-3000:]}"
        time.sleep(0.2)
    return found


def _watch(tmp_path: Path, *command: str) -> tuple[subprocess.Popen, Path, Path, Path]:
    kernel = tmp_path / "add.py"
    shutil.copy(ROOT / "sample_kernels" / "vector_add.py", kernel)
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "tritonscope", *command, str(kernel), "--target", "sm90", "--watch"],
            stdout=stdout,
            stderr=stderr,
            cwd=tmp_path,
            env={**os.environ, "COLUMNS": "120"},
        )
    return process, kernel, out, err


def test_dump_watch_draws_again_on_each_save_and_goes_on_after_an_error(tmp_path):
    process, kernel, out, err = _watch(tmp_path, "dump", "--stage", "ttir")
    try:
        _until(err, "watching add.py")
        assert "arith.addf" in out.read_text() and "arith.mulf" not in out.read_text()
        good = kernel.read_text()
        kernel.write_text(good.replace("output = x + y", "output = x * y"))
        drawn = _until(out, "TTIR (Triton IR)", 2)
        assert "arith.mulf" in drawn.split("TTIR (Triton IR)")[-1]
        kernel.write_text(good.replace("output = x + y", "output = x + undefined_thing"))
        said = _until(err, "watching add.py", 3)
        assert f"error: {kernel}:" in said and "undefined_thing" in said and process.poll() is None
        kernel.write_text(good)
        assert "arith.addf" in _until(out, "TTIR (Triton IR)", 3).split("TTIR (Triton IR)")[-1]
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(60) == 130
    assert "Traceback" not in err.read_text()


def test_explain_watch_draws_its_view_again(tmp_path):
    process, kernel, out, err = _watch(tmp_path, "explain", "--no-what-if")
    try:
        _until(err, "watching add.py")
        assert "inst:" in out.read_text()
        kernel.write_text(
            kernel.read_text().replace("x = tl.load(x_ptr + offsets, mask=mask)", "x = tl.load(x_ptr + offsets)")
        )
        _until(out, "inst:", 2)
    finally:
        process.terminate()
        assert process.wait(60) == 143
