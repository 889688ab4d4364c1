"""Whether tritonscope is running a kernel file's top-level code in this process (app/walk/load.py
imports the file to read its kernels), for the Python API to refuse compiles asked for there: each
compile's process imports the file again, and a script that calls `ts.dump(kernel)` unguarded would
start compiles without end. Kept apart from load.py so that the API asks it without importing Triton.
"""

from __future__ import annotations

import contextlib
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

from .errors import KernelFileError

_running: list[Path] = []  # the kernel files whose top-level code runs now, innermost last


@contextlib.contextmanager
def running(path: Path) -> Iterator[None]:
    """While the file's top-level code runs: its `sys.argv` is `python FILE`'s, not tritonscope's own
    command line (FlagGems parses sys.argv at import: `--debug` of tritonscope's was its own option)."""
    _running.append(path)
    argv, sys.argv = sys.argv, [str(path)]
    try:
        yield
    finally:
        sys.argv = argv
        _running.pop()


def importing_kernel_file() -> bool:
    return bool(_running)


def refuse_compiles(what: str) -> None:
    """Raises while a kernel file's top-level code runs (`what`: what it called), naming its line."""
    if not _running:
        return
    path = _running[-1]
    line = next((f.lineno for f in reversed(traceback.extract_stack()) if Path(f.filename) == path), None)
    raise KernelFileError(
        f"{path}{f':{line}' if line else ''}: calls {what} at import: tritonscope imports the file to read "
        "its kernels (each compile's process imports it again), so the call would start compiles without end",
        hint='put the calls under `if __name__ == "__main__":`, or give the kernel from a file that does not call them',
    )
