"""`trace --target`: what the simulated GPU does to cost less, and that the program loses nothing.

At the traced program's exit it skips the interpreter's last garbage collections (they cost a
simulated torch.compile run 0.5 to 1 s and free nothing the capture needs), after flushing the
files they would have flushed. torch._dynamo.testing is patched when something imports it, not
imported at start (0.19 s for a program that never calls torch.compile), before the importer
binds its names.
"""

from __future__ import annotations

import importlib
import sys

import pytest
from cli_process import tritonscope

from tritonscope.triton_api.simulated.after_import import after_import

pytest.importorskip("torch")  # the smoke runs of other releases install no torch


def test_a_file_the_program_left_open_in_a_reference_cycle_is_flushed_at_exit(tmp_path):
    """The simulated GPU skips the interpreter's last garbage collections at exit (they only cost
    time), but the files they would have flushed are flushed first."""
    written = tmp_path / "log.txt"
    program = tmp_path / "leaves_open.py"
    program.write_text(
        "import torch\n\nclass Log:\n    def __init__(self, path):\n"
        "        self.file, self.me = open(path, 'w'), self  # a cycle: only the collector frees it\n\n"
        f"log = Log({str(written)!r})\nlog.file.write('written at exit\\n')\n"
    )
    tritonscope("trace", "--target", "sm90", "-o", tmp_path / "out", "--", sys.executable, program)
    assert written.read_text() == "written at exit\n"


def test_a_module_patched_after_import_is_patched_before_its_importer_binds_its_names(tmp_path, monkeypatch):
    package = tmp_path / "after_import_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "values.py").write_text("def answer():\n    return 'original'\n")
    (package / "user.py").write_text("from after_import_pkg.values import answer\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    patched = []

    def patch(module) -> None:
        module.answer = lambda: "patched"
        patched.append(module.__name__)

    after_import("after_import_pkg.values", patch)
    assert patched == []  # nothing imported it yet
    user = importlib.import_module("after_import_pkg.user")
    assert user.answer() == "patched" and patched == ["after_import_pkg.values"]
    after_import("after_import_pkg.values", patch)  # already imported: patched at once
    assert patched == ["after_import_pkg.values"] * 2
    for name in ("after_import_pkg", "after_import_pkg.values", "after_import_pkg.user"):
        sys.modules.pop(name, None)
