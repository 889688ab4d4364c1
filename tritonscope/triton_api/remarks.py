"""MLIR's remarks: turned on for a compile, captured off file descriptor 2, and kept beside
Triton's cache so that a cache hit (no pass runs, nothing is printed) still has them.

libtriton's pass manager reads MLIR_ENABLE_DIAGNOSTICS when it runs (the same name and values
from 3.5 to 3.9, with no triton.knobs entry; the older MLIR_ENABLE_REMARK is gone). "remarks"
prints remarks and warnings with their locations to file descriptor 2. Triton counts the
variable in its cache key, so a compile with remarks is filed apart from one without.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path

import triton

from ..core.fileio import read_checked, write_checked
from ..parsers.mlir_diagnostics import Remark

DIAGNOSTICS_ENV = "MLIR_ENABLE_DIAGNOSTICS"
REMARKS_UNKNOWN = (
    "MLIR remarks: not known (Triton's cache had the kernel, and tritonscope's record of its remarks is gone; "
    "TRITON_ALWAYS_COMPILE=1 compiles it again)"
)


@contextlib.contextmanager
def remarks_on():
    previous = os.environ.get(DIAGNOSTICS_ENV)
    os.environ[DIAGNOSTICS_ENV] = "remarks"  # not the user's own levels: "operations" would print IR
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(DIAGNOSTICS_ENV, None)
        else:
            os.environ[DIAGNOSTICS_ENV] = previous


def _remarks_file(metadata: dict, cache: str | Path | None = None) -> Path:
    """Where a compile's remarks are kept: beside Triton's cache (`cache`, else the one in use), by
    Triton's key (`hash` in its metadata)."""
    return Path(cache or triton.knobs.cache.dir) / "tritonscope" / f"{metadata.get('hash', '')}.remarks"


def record_remarks(metadata: dict, remarks: tuple[Remark, ...]) -> None:
    rows = [[r.severity, r.message, [list(x) for x in r.locations], list(r.notes)] for r in remarks]
    write_checked(_remarks_file(metadata), json.dumps(rows))  # a read-only cache only costs them later


def recorded_remarks(metadata: dict, cache: str | Path | None = None) -> tuple[Remark, ...] | None:
    """The remarks recorded when the kernel Triton's cache holds was compiled, or None if there are none kept."""
    text = read_checked(_remarks_file(metadata, cache)) if metadata.get("hash") else None
    if text is None:
        return None
    try:
        rows = json.loads(text)
        return tuple(Remark(s, m, tuple((f, int(n)) for f, n in where), tuple(notes)) for s, m, where, notes in rows)
    except (ValueError, TypeError):
        return None


STDERR_PASSED = "TRITONSCOPE_COMPILER_STDERR"  # set in a child that may abort: the compiler's stderr goes out


class StderrCapture:
    """Collects what the C++ compiler writes to file descriptor 2 (MLIR diagnostics) into `text`.

    Python-level writes keep going to the real stderr, so a progress spinner still shows.
    """

    text = ""

    def __enter__(self):
        sys.stderr.flush()
        self._passed = os.environ.get(STDERR_PASSED) == "1"  # app/walk/prepare.py's isolated compile
        if self._passed:
            return self
        self._file = tempfile.TemporaryFile(mode="w+")
        self._saved_fd = os.dup(2)
        self._python_stderr = sys.stderr
        sys.stderr = os.fdopen(os.dup(self._saved_fd), "w")
        os.dup2(self._file.fileno(), 2)
        return self

    def __exit__(self, *exc_info):
        if self._passed:  # nothing was captured: the diagnostics went out as they came
            return False
        sys.stderr.flush()
        os.dup2(self._saved_fd, 2)
        os.close(self._saved_fd)
        sys.stderr.close()
        sys.stderr = self._python_stderr
        self._file.seek(0)
        self.text = self._file.read()
        self._file.close()
        return False
