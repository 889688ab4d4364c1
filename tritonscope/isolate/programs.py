"""Foreign programs (ncu, pip, the program `trace` runs) as children: `Program`.

Each runs under its supervisor (supervisor.py, a small standard-library program started first), so
it dies with its parent whatever killed the parent, runs under a time limit where one is given,
and is stopped (SIGTERM, then SIGKILL after STOP_GRACE; the programs it started too, whatever
their process group) when the limit passes or the parent is interrupted (Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import UsageError

STOP_GRACE = 3.0  # seconds a stopped program has between SIGTERM and SIGKILL
SUPERVISOR = Path(__file__).with_name("supervisor.py")


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str | bytes | None = None  # what it printed, where piped
    stderr: str | bytes | None = None
    timed_out: bool = False  # it ran past its time limit and was stopped


class Program:
    """A foreign program as a child: `with Program(argv, ...) as p: finished = p.finish(timeout)`.
    With `own_group` it and what it starts are stopped together; without, it stays in the
    terminal's group (a user's program that reads the terminal, sees its Ctrl-C)."""

    def __init__(self, argv: list[str], own_group: bool = True, **popen: Any):
        env = popen.get("env") or os.environ
        if shutil.which(argv[0], path=env.get("PATH")) is None:  # said here, as Popen would say it
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv[0])
        self.own_group = own_group
        # -S: no site packages to import; the supervisor needs the standard library alone.
        supervised = [sys.executable, "-S", str(SUPERVISOR), str(os.getpid()), str(STOP_GRACE), *argv]
        self.process = subprocess.Popen(supervised, start_new_session=own_group, **popen)

    def __enter__(self) -> Program:
        return self

    def __exit__(self, kind, *_) -> None:
        if kind is not None:  # the caller failed or was interrupted (Ctrl-C, SIGTERM): no orphan
            self.stop()
        self.process.wait()

    def finish(self, timeout: float | None = None) -> Finished:
        """Waits for the program (at most `timeout` seconds), reading what it prints where piped."""
        try:
            out, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            return Finished(self.process.returncode, timed_out=True)
        return Finished(self.process.returncode, out, err)

    def stop(self) -> None:
        """Asks the supervisor to stop the program and everything it started (SIGTERM, then SIGKILL
        after STOP_GRACE); SIGKILL to it, and to its group where it has one, if it does not end."""
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.communicate(timeout=STOP_GRACE + 6)
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL) if self.own_group else self.process.kill()
        self.process.communicate()


def not_started(command: list[str], exc: OSError) -> UsageError:
    """Why COMMAND could not be started, in the user's terms: "No such file or directory" for a
    prog.py that is right there (not executable, or not a command: `-- python prog.py` runs it)."""
    name, path = command[0], Path(command[0])
    python = f"-- python {shlex.join(command)}" if path.suffix == ".py" else None
    if path.is_file() and not os.access(path, os.X_OK):
        hint = f"run it with its interpreter: {python}" if python else (
            f"make it executable (chmod +x {shlex.quote(name)}), or run it with its interpreter"
        )  # fmt: skip
        return UsageError(f"cannot run {name}: the file is not executable", hint=hint)
    if path.is_file() and os.sep not in name and shutil.which(name) is None:
        said = f"cannot run {name}: it is no command on PATH (the file of that name here is not looked for)"
        return UsageError(said, hint=f"-- ./{shlex.join(command)}" + (f", or {python}" if python else ""))
    return UsageError(f"cannot run {name}: {exc.strerror}")
