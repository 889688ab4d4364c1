"""The environment benchmarks run tritonscope in: as installed, with its modules byte-compiled.

pip compiles an installed package's modules once, at install; an editable checkout run with
PYTHONDONTWRITEBYTECODE=1 (as some shells and sandboxes set it) compiles all of tritonscope's
modules again on every run, about 0.2 s of CPU on the 2-core machine, which Triton's own
(byte-compiled by pip) never pays: that would be measured as tritonscope's overhead.
"""

from __future__ import annotations

import compileall
import os
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
