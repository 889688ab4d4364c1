"""`trace --target`: what the simulated GPU does at the traced program's exit.

It skips the interpreter's last garbage collections (they cost a simulated torch.compile run 0.5
to 1 s and free nothing the capture needs), after flushing the files they would have flushed.
"""

from __future__ import annotations

import sys

import pytest
from cli_process import tritonscope

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
