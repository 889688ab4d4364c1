"""The run's own temporary folder: what the run's tools write to TMPDIR goes there, and it goes.

Triton writes ptxas's input and log to TMPDIR (tmpXXXX.ptx, .log, .ptx.o) and removes them only
when ptxas succeeds; Ctrl-C or a signal while ptxas runs, or a refused PTX, leaves them there.
pip's build folders land there too. So a command runs with TMPDIR pointed (in this process and
in its workers and pip) at `tritonscope-run.PID.XXXX` under the user's TMPDIR, removed when the
run ends however it ends (an error, Ctrl-C, SIGTERM, SIGHUP); the one of a run killed outright
(SIGKILL, a crash) is removed by the next run, once its process is gone. A program the user runs
(`trace`, `--from-run`) keeps the user's own TMPDIR.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

PREFIX = "tritonscope-run."
_NAME = re.compile(rf"^{re.escape(PREFIX)}(\d+)\.\w+$")
_folder: str | None = None  # this run's, while one is in use


@contextlib.contextmanager
def run_folder() -> Iterator[str | None]:
    """This run's temporary folder for the duration of the block (None where TMPDIR cannot hold one:
    then everything stays as it was, and what fails to write there says so itself). Inside a block
    of its own, the outer block's folder (launch.py enters one before the command line does)."""
    global _folder
    if _folder is not None:
        yield _folder
        return
    base = tempfile.gettempdir()
    remove_abandoned(Path(base))
    try:
        folder = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}.", dir=base)
    except OSError:
        yield None
        return
    previous, tempfile.tempdir, _folder = tempfile.tempdir, folder, folder
    try:
        yield folder
    finally:
        tempfile.tempdir, _folder = previous, None
        from .fileio import signals_deferred

        with signals_deferred():  # a second Ctrl-C cannot cut the removal short
            shutil.rmtree(folder, ignore_errors=True)


def environ() -> dict[str, str]:
    """What a child process (a worker, pip) needs to write its temporary files into this run's folder."""
    return {"TMPDIR": _folder} if _folder else {}


def remove_abandoned(base: Path) -> None:
    """Removes the run folders of runs whose process is gone: only folders named as this module
    names them, and never one of a process still alive."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(base):
            match = _NAME.match(entry.name)
            if match and entry.is_dir(follow_symlinks=False) and not alive(int(match[1])):
                shutil.rmtree(entry.path, ignore_errors=True)


def alive(pid: int) -> bool:
    """Whether a process of this id runs (another user's too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


@contextlib.contextmanager
def own_working_folder() -> Iterator[Path]:
    """A fresh folder of tritonscope's own (in the run's folder where there is one), removed after the
    block: the working directory of code tritonscope runs on its own account, a kernel file imported
    or run against the simulated GPU, so that what that code writes into its working directory (a
    benchmark's results.html and plots, figures of no real run) never lands among the user's files."""
    folder = Path(tempfile.mkdtemp(prefix="tritonscope-cwd."))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def working_in(folder: Path) -> Iterator[None]:
    """This process's working directory is FOLDER for the block, then the one before again."""
    previous = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(previous)
