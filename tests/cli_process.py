"""Runs tritonscope as a user does, `python -m tritonscope ...` in a child process.

Tests that use this talk to the command line only, so they hold whatever the package's
modules are called.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys


def _argv(args) -> list[str]:
    return [sys.executable, "-m", "tritonscope", *map(str, args)]


def _checked(argv: list[str], proc: subprocess.CompletedProcess, expect: int | None) -> subprocess.CompletedProcess:
    shown = shlex.join(argv[1:])
    if expect is not None:
        assert proc.returncode == expect, (
            f"exit {proc.returncode}, expected {expect}: {shown}\n"
            f"stdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}"
        )
    assert "Traceback" not in proc.stdout + proc.stderr, f"{shown}\n{proc.stderr[-4000:]}"
    return proc


ENV = {**os.environ, "COLUMNS": "240", "NO_COLOR": "1"}


def tritonscope(
    *args, expect: int | None = 0, timeout: float = 600, env: dict[str, str] | None = None, cwd=None
) -> subprocess.CompletedProcess:
    """Runs `python -m tritonscope ARGS` (in CWD, else here); checks the exit code (unless expect is None)
    and that no traceback shows. `env` is laid over the environment."""
    argv = _argv(args)
    environment = {**ENV, **(env or {})}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=environment, cwd=cwd)
    return _checked(argv, done, expect)


def tritonscope_together(*commands, timeout: float = 600) -> list[subprocess.CompletedProcess]:
    """Runs several tritonscope commands at once (each in its own process) and returns them in order, unchecked."""
    argvs = [_argv(args) for args in commands]
    children = [subprocess.Popen(a, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV) for a in argvs]
    results = []
    for argv, child in zip(argvs, children, strict=True):
        stdout, stderr = child.communicate(timeout=timeout)
        results.append(subprocess.CompletedProcess(argv, child.returncode, stdout, stderr))
    return results


def check(proc: subprocess.CompletedProcess, expect: int = 0) -> subprocess.CompletedProcess:
    """The checks of `tritonscope` for a process from `tritonscope_together`."""
    return _checked(proc.args, proc, expect)


def dump_json(*args, expect: int = 0) -> dict:
    """`tritonscope dump ARGS --json`, parsed."""
    return json.loads(tritonscope("dump", *args, "--json", expect=expect).stdout)
