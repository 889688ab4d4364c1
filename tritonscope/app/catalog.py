"""`samples`, `list`, `cache list` and `trace`: what there is to look at."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ..core import samples as bundled
from ..core.errors import UsageError
from ..core.fileio import discard, prepare_output_dir, publish_output_dir
from ..results.cache import CacheListing
from ..results.catalog import KernelList, SamplesResult
from ..results.trace import TraceResult
from . import cache
from .load import load_file


def samples() -> SamplesResult:
    return SamplesResult(tuple(bundled.all_samples()))


def list_kernels(file: str) -> KernelList:
    loaded = load_file(file)
    return KernelList(loaded.path, tuple(k.spec for k in loaded.kernels), dict(loaded.defaults))


def cache_list(folder: Path | None) -> CacheListing:
    folder = folder or cache.default_dir()
    found, problems = cache.scan(folder)
    return CacheListing(folder, tuple(found), tuple(problems))


def trace(
    command: list[str], out: Path, force: bool, protected: list[Path], launches: int = 3, program_to_stderr=False
) -> TraceResult:
    """Runs a program with every Triton compile captured into OUT (written whole, then swapped in), and
    the first LAUNCHES launches of each compiled kernel. The program's stdout goes to stderr when
    stdout carries a document."""
    if launches < 0:
        raise UsageError(f"--launches {launches}: give 0 (record none) or more")
    if not command:
        raise UsageError("give the program to run after --, e.g. tritonscope trace -o run1/ -- python train.py")
    staging = prepare_output_dir(out, force, protected)
    try:
        finished = subprocess.run(
            command,
            env=cache.environment_for_capture(staging.resolve(), launches),
            stdout=sys.stderr if program_to_stderr else None,
        )
    except OSError as exc:
        discard(staging)  # nothing ran: the old capture stays as it was
        raise UsageError(f"cannot run {command[0]}: {exc.strerror}") from None
    except BaseException:
        discard(staging)
        raise
    publish_output_dir(staging, out)
    found = cache.entries(out) if (out / "cache").is_dir() else []
    recorded = sum(len(e.launches) for e in found)
    return TraceResult(out, tuple(sorted({e.name for e in found})), finished.returncode, recorded)
