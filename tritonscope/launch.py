"""The `tritonscope` command's entry point (and `python -m tritonscope`'s).

`explore`'s first screen waits on its first compile, and `diff --vary` on its variants' compiles, in
worker processes. The command line's own imports (typer, rich, every command's options, the
renderer) take 0.2 to 0.5 s before the command runs; the workers are started here, ahead of them, so
that their Python and Triton start-up overlaps them (on a core that would be idle), and the command
takes them (isolate.warm_pool). Every other command starts as it did.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import sys

EXPLORE_PRELOAD = "tritonscope.app.explain"  # app/explore.py's WARM: what the explorer's worker imports
DIFF_PRELOAD = "tritonscope.app.walk.prepare"  # app/walk/sweep.py's COMPILE_MODULE: what diff's workers import


def main() -> None:
    atexit.register(_quiet_teardown)  # first registered: run last, after every other exit handler
    args = sys.argv[1:]
    ahead = _started_ahead(args)
    if ahead is None:
        return _command_line()
    from .core import scratch
    from .isolate import close_ahead, start_ahead

    with scratch.run_folder():  # the workers' temporary files in the run's folder (the command's too)
        start_ahead(*ahead)
        try:
            _command_line()
        finally:
            close_ahead()


def _started_ahead(args: list[str]) -> tuple[str, int] | None:
    """(what the workers import, how many) to start ahead of the command line, or None."""
    if {"-h", "--help"} & set(args):
        return None
    if args[:1] == ["explore"]:
        return EXPLORE_PRELOAD, 1
    if args[:1] == ["diff"]:
        count = _diff_workers(args[1:])
        return (DIFF_PRELOAD, count) if count else None
    return None


def _diff_workers(args: list[str]) -> int:
    """How many of `diff --vary`'s workers compile at once: -j (else the cores), no more than the
    variants. 0 where they would not be this release's workers on this machine (--cluster, --triton,
    a triton axis), where nothing compiles (a capture folder) or where the count is not plain from the
    words (--configs, --space: their workers start as they did). A count read wrong costs only a
    worker's start-up: the command starts the workers it needs, and those left unused are killed."""
    words = [part for arg in args for part in (arg.split("=", 1) if arg.startswith("--") else [arg])]
    pairs = list(zip(words, words[1:], strict=False))
    values = {flag: [v for f, v in pairs if f == flag] for flag in ("--vary", "-j", "--jobs")}
    values["-j"] += [w[2:] for w in words if w.startswith("-j") and w[2:].isdigit()]
    if not values["--vary"] or not words or os.path.isdir(words[0]):
        return 0
    if {"--cluster", "--triton", "--configs", "--space"} & set(words) or any(
        v.startswith("triton=") for v in values["--vary"]
    ):
        return 0
    cores = os.cpu_count() or 1
    jobs = [int(v) for v in values["-j"] + values["--jobs"] if v.isdigit()]
    variants = math.prod(len(v.split(",")) for v in values["--vary"])
    return min(jobs[-1] if jobs else cores, cores, variants)


def _quiet_teardown() -> None:
    """The interpreter's teardown, after the command has said everything, writes nothing: Triton 3.9's
    nanobind reports the Gluon IR objects alive at exit (`nanobind: leaked 4 instances! ...`, 26 lines
    under an `explain` that had ended), which no user can act on."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)


def _command_line() -> None:
    from .cli import main as command_line

    command_line()
