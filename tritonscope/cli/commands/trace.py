from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..app import Output, command, say
from ..options import JsonOpt


@command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def trace(
    command_line: Annotated[list[str], typer.Argument(help="The program to run, after --.", metavar="-- COMMAND...")],
    out: Annotated[Path, typer.Option("--out", "-o", metavar="DIR", help="The capture directory to write.")],
    force: Annotated[bool, typer.Option("--force", help="Replace a capture directory tritonscope wrote.")] = False,
    launches: Annotated[
        int,
        typer.Option(
            "--launches",
            metavar="N",
            help="Record the first N launches of each compiled kernel (grid, argument shapes and values), "
            "in each process; 0 records none.",
        ),
    ] = 3,
    json_out: JsonOpt = False,
):
    """Run a program and capture every kernel Triton compiles in it (torch.compile's kernels too).

    Each kernel's stages, metadata, source and the specialization Triton used land in DIR, with
    its first launches; `tritonscope cache list DIR` lists them, `tritonscope dump DIR/:NAME`
    shows one, and `tritonscope reproduce DIR/:NAME` writes a script that launches it again.

    With --json, a document naming what was captured goes to stdout, and the program's own
    output to stderr.

    Examples:

      tritonscope trace -o run1/ -- python train.py --steps 3

      tritonscope trace -o run1/ --json -- python train.py > captured.json
    """
    from ...app.catalog import trace as run_trace

    protected = [Path(word) for word in command_line if Path(word).exists()]  # the program and its files
    result = run_trace(command_line, out, force, protected, launches, program_to_stderr=json_out)
    say(f"captured {len(result.kernels)} compiled kernel(s) into {out}: " + ", ".join(result.kernels))
    if launches:
        say(f"recorded {result.launches} launch(es), at most {launches} per kernel and process")
    return Output(result, shown=json_out)  # without --json, stdout is the program's
