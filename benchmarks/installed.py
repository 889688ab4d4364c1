"""The environment benchmarks run tritonscope in: as installed, with its modules byte-compiled.

pip compiles an installed package's modules once, at install; an editable checkout run with
PYTHONDONTWRITEBYTECODE=1 (as some shells and sandboxes set it) compiles all of tritonscope's
modules again on every run, about 0.2 s of CPU on the 2-core machine, which Triton's own
(byte-compiled by pip) never pays: that would be measured as tritonscope's overhead.
"""

from __future__ import annotations

import compileall
import os
import resource
import subprocess
import time
from pathlib import Path

import tritonscope


def environ(**changes: str) -> dict[str, str]:
    """os.environ with bytecode allowed and tritonscope's modules compiled, and `changes` on top."""
    compileall.compile_dir(str(Path(tritonscope.__file__).parent), quiet=1)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **changes}


def load() -> str:
    """The load average, to print beside a run's figures (the machine is shared)."""
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and every process it waited for). On a machine
    shared with other jobs the CPU time moves far less than the wall time does."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
