from __future__ import annotations

import sys
from typing import Annotated

import typer

from ..messages import progress
from ..options import variant_flags
from ..runner import command

WatchOpt = Annotated[
    bool, typer.Option("--watch/--no-watch", help="Recompile when the kernel file is saved (default: on).")
]


@command()
@variant_flags
def explore(request, watch: WatchOpt = True):
    """A full-screen explorer: the Python source beside its stages, linked line by line; variants by
    keystroke, compiled in the background; the kernel compiled again on every save.

    Move the cursor on any line: every other pane highlights the lines that came from the same
    Python line. `v` changes a constexpr, an argument, num_warps, num_stages, the target or the
    Triton release; `p` opens the pass pipeline; `y` copies the `dump` command of the variant on
    screen; `?` lists every key. FILE is anything dump takes; a capture folder or a Triton cache
    opens on its kernel list.

    Examples:

      tritonscope explore sample:matmul

      tritonscope explore kernels.py -k softmax_kernel -c BLOCK_SIZE=1024 --target sm80

      tritonscope explore liger_kernel.ops.rms_norm:_rms_norm_forward_kernel -c BLOCK_SIZE=4096
      -c casting_mode=0 -c elementwise_affine=True --dtype bf16

      tritonscope explore h100/          (a capture from `trace -o h100/`: its kernels listed)
    """
    from ... import explorer
    from ...core.errors import UsageError
    from ...core.source import refuse_missing

    refuse_missing(request.source, "give a Python file with Triton kernels, sample:NAME or a capture folder")  # first
    if not (sys.stdin.isatty() and sys.__stderr__ is not None and sys.__stderr__.isatty()):
        raise UsageError("explore needs a terminal", hint="without one, `tritonscope dump --watch` prints instead")
    opening = explorer.start(request)
    with progress(f"compiling {request.file} for the explorer"):
        from ...explorer import app  # noqa: F401  # Textual's import (0.5 s) while the child compiles
        from ...explorer.panes import make_lexers

        make_lexers()
        first = opening.first()
    raise typer.Exit(explorer.run(opening, first, watch))
