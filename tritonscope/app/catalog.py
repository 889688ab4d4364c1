"""`samples`, `list`, `cache list` and `trace`: what there is to look at."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..core import samples as bundled
from ..core.autotune_rule import AutotuneRule
from ..core.errors import UsageError
from ..core.fileio import discard, prepare_output_dir, publish_output_dir
from ..core.source import Source
from ..core.targets import Target
from ..isolate import Program
from ..results.cache import CacheListing
from ..results.catalog import KernelList, SamplesResult
from ..results.trace import TraceResult
from . import cache


def samples() -> SamplesResult:
    return SamplesResult(tuple(bundled.all_samples()))


def list_kernels(source: Source, target: Target) -> KernelList:
    from .load import load_file  # imports Triton: `trace` and `cache list`, which import this module, need none

    loaded = load_file(source, target)
    return KernelList(loaded.path, tuple(k.spec for k in loaded.kernels), dict(loaded.defaults), loaded.notices)


def cache_list(folder: Path | None) -> CacheListing:
    folder = folder or cache.default_dir()
    found, problems = cache.scan(folder)
    autotune, simulated = cache.simulation_records(folder)
    return CacheListing(folder, tuple(found), tuple(problems), autotune, simulated)


def trace(
    command: list[str],
    out: Path,
    force: bool,
    protected: list[Path],
    launches: int = 3,
    program_to_stderr=False,
    target: Target | None = None,
    autotune: AutotuneRule | None = None,
) -> TraceResult:
    """Runs a program with every Triton compile captured into OUT (written whole, then swapped in), and
    the first LAUNCHES launches of each compiled kernel; against a simulated GPU of TARGET when one
    is given, where AUTOTUNE picks each autotuned kernel's launched candidate. The program's stdout
    goes to stderr when stdout carries a document."""
    if launches < 0:
        raise UsageError(f"--launches {launches}: give 0 (record none) or more")
    if autotune is not None and target is None:
        raise UsageError(
            f"--autotune {autotune.given}: on a real GPU the autotuner times its candidates; the rule is for "
            "a simulated one",
            hint="add --target T (e.g. --target sm90)",
        )
    if not command:
        raise UsageError("give the program to run after --, e.g. tritonscope trace -o run1/ -- python train.py")
    device = target.simulated_device() if target else None
    staging = prepare_output_dir(out, force, protected)
    try:
        env = cache.environment_for_capture(staging.resolve(), launches, device, autotune)
        # No time limit (a training run takes what it takes); it stays in the terminal's process
        # group, so it reads the terminal and gets Ctrl-C itself, and is stopped if we are.
        with Program(command, own_group=False, env=env, stdout=sys.stderr if program_to_stderr else None) as program:
            finished = program.finish()
    except OSError as exc:
        discard(staging)  # nothing ran: the old capture stays as it was
        raise UsageError(f"cannot run {command[0]}: {exc.strerror}") from None
    except BaseException:
        discard(staging)
        raise
    stopped = cache.stop_record(staging)
    if device:
        (staging / cache.SIMULATED_RECORD).write_text(json.dumps(device, indent=1) + "\n")
    publish_output_dir(staging, out)
    found = cache.entries(out) if (out / "cache").is_dir() else []
    recorded = sum(len(e.launches) for e in found)
    names = tuple(sorted({e.name for e in found}))
    return TraceResult(out, names, finished.returncode, recorded, device["target"] if device else None, stopped)
