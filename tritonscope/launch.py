"""The `tritonscope` command's entry point (and `python -m tritonscope`'s).

`explore`'s first screen waits on its first compile, in a worker process. The command line's own
imports (typer, rich, every command's options, the explorer) take 0.2 to 0.5 s before the command
runs; the worker is started here, ahead of them, so that its Python and Triton start-up overlaps
them, and the explorer takes it (isolate.warm_pool). Every other command starts as it did.
"""

from __future__ import annotations

import sys

EXPLORE_PRELOAD = "tritonscope.app.explain"  # app/explore.py's WARM: what the explorer's worker imports


def main() -> None:
    args = sys.argv[1:]
    if args[:1] != ["explore"] or {"-h", "--help"} & set(args):
        return _command_line()
    from .core import scratch
    from .isolate import close_ahead, start_ahead

    with scratch.run_folder():  # the worker's temporary files in the run's folder (the command's too)
        start_ahead(EXPLORE_PRELOAD)
        try:
            _command_line()
        finally:
            close_ahead()


def _command_line() -> None:
    from .cli import main as command_line

    command_line()
