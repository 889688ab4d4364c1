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


_HELPER = "import triton\n\n\n@triton.jit\ndef combine(x, y):\n    return x + y\n"


def test_a_save_of_a_helper_file_the_kernel_imports_draws_again_with_the_helper_as_saved(tmp_path):
    """A kernel importing its @triton.jit helper from a file beside it: a save of the helper was not
    watched, and a load in the same process took the helper's module as it was first imported."""
    (tmp_path / "combining.py").write_text(_HELPER)
    kernel = tmp_path / "add.py"
    source = (ROOT / "sample_kernels" / "vector_add.py").read_text()
    kernel.write_text("from combining import combine\n" + source.replace("output = x + y", "output = combine(x, y)"))
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tritonscope",
                "dump",
                str(kernel),
                "--target",
                "sm90",
                "--stage",
                "ttir",
                "--watch",
            ],
            stdout=stdout,
            stderr=stderr,
            cwd=tmp_path,
            env={**os.environ, "COLUMNS": "120"},
        )
    try:
        assert "watching add.py and the 1 file it imports" in _until(err, "watching add.py")
        assert "arith.addf" in out.read_text() and "arith.mulf" not in out.read_text()
        (tmp_path / "combining.py").write_text(_HELPER.replace("x + y", "x * y"))
        drawn = _until(out, "TTIR (Triton IR)", 2)
        assert "arith.mulf" in drawn.split("TTIR (Triton IR)")[-1]
    finally:
        process.terminate()
        assert process.wait(60) == 143
    assert "Traceback" not in err.read_text()


def test_the_files_a_kernel_file_imports_are_its_own_not_installed_ones(tmp_path):
    from tritonscope.app.walk.load import load_file
    from tritonscope.app.walk.packages import helper_files
    from tritonscope.core.pysource import local_imports

    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "deep.py").write_text("X = 1\n")
    (package / "utils.py").write_text("from .sub import deep\n")  # followed: a helper's own import
    (package / "kern.py").write_text("import os\nimport triton\nfrom . import utils\nfrom pkg.sub.deep import X\n")
    (tmp_path / "other.py").write_text("")  # beside the package, not in it: not the kernel's
    (package / "kern.py").write_text((package / "kern.py").read_text() + "import other\n")
    found = local_imports(package / "kern.py", (tmp_path,), package)
    names = sorted(str(f.relative_to(tmp_path)) for f in found)
    assert names == ["pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/deep.py", "pkg/utils.py"]
    assert helper_files(package / "kern.py") == found  # the package found as the loader finds it
    deep = tmp_path / "deep.py"  # a relative import past the filesystem's root: none found (IndexError)
    deep.write_text("from " + "." * (len(deep.parents) + 2) + " import x\n")
    assert local_imports(deep, (tmp_path,), tmp_path) == ()

    (tmp_path / "combining.py").write_text(_HELPER)
    kernel = tmp_path / "add.py"
    source = (ROOT / "sample_kernels" / "vector_add.py").read_text()
    kernel.write_text("from combining import combine\n" + source.replace("output = x + y", "output = combine(x, y)"))
    first = load_file(str(kernel))
    assert first.module.combine.fn(2, 3) == 5
    (tmp_path / "combining.py").write_text(_HELPER.replace("x + y", "x * y  # saved"))
    again = load_file(str(kernel))
    assert again is not first and again.module.combine.fn(2, 3) == 6
    assert load_file(str(kernel)) is again  # nothing changed since: the same load
