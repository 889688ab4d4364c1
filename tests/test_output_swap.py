"""An output folder replaced with --force is at its path at every instant (issue 27, item 9).

The swap runs in a child process that kills itself (SIGKILL, which nothing can hold back) at every
rename it makes, in turn: whatever step the kill lands on, OUT holds the old results or the new
ones, and the next run puts back any folder left half-swapped.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tritonscope.core import fileio

_CHILD = """
import os, signal, sys
from pathlib import Path
from tritonscope.core import fileio

out, kill_at = Path(sys.argv[1]), int(sys.argv[2])
staging = fileio.prepare_output_dir(out, True, [])
(staging / "report.json").write_text("new")
calls = [0]
real_rename = os.rename

def rename(*args, **kwargs):
    calls[0] += 1
    if calls[0] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    return real_rename(*args, **kwargs)

os.rename = rename
Path.rename = lambda self, target: (rename(self, target), Path(target))[1]
fileio.publish_output_dir(staging, out)
"""


def _old_output(folder: Path) -> Path:
    out = folder / "out"
    out.mkdir()
    (out / fileio.MARKER).write_text("written by tritonscope\n")
    (out / "report.json").write_text("old")
    return out


@pytest.mark.parametrize("kill_at", [1, 2, 3])
def test_a_kill_at_any_step_of_the_swap_leaves_a_whole_folder(tmp_path, kill_at):
    out = _old_output(tmp_path)
    child = subprocess.run([sys.executable, "-c", _CHILD, str(out), str(kill_at)], capture_output=True, text=True)
    assert child.returncode in (0, -9), child.stderr
    assert (out / "report.json").read_text() in ("old", "new"), sorted(p.name for p in tmp_path.iterdir())
    fileio.recover(out)  # what the next run does first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_half_swapped_folder_is_put_back_by_the_next_run(tmp_path):
    """What a kill between two renames left (a system without an atomic exchange): no OUT, the old
    results under the hidden name; the next run puts them back."""
    out = _old_output(tmp_path)
    out.rename(tmp_path / ".out.old.999999.x1")
    (tmp_path / ".out.new.999999.y2").mkdir()
    (tmp_path / ".out.new.999999.y2" / fileio.MARKER).write_text("written by tritonscope\n")
    fileio.recover(out)
    assert (out / "report.json").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_exchange_swaps_two_folders_in_one_step(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "x").write_text("a")
    (second / "x").write_text("b")
    if not fileio.exchange(first, second):
        pytest.skip("no renameat2(RENAME_EXCHANGE) here")
    assert (first / "x").read_text() == "b" and (second / "x").read_text() == "a"
