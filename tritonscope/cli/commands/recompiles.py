"""`tritonscope recompiles DIR/`: why each kernel of a capture compiled again, and what to do about it;
with --shapes, the compiles still to come for the sizes a server will see."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..messages import progress
from ..options import JsonOpt
from ..runner import command

AfterOpt = Annotated[
    str | None,
    typer.Option("--after", metavar="MARK", help="Only the compiles after the program passed this mark (warmup)."),
]
ProveOpt = Annotated[
    bool,
    typer.Option(
        "--prove/--no-prove",
        help="Compile each fix to show the two launches then share one variant, and what it costs (default: on).",
    ),
]


@command()
def recompiles(
    folder: Annotated[Path, typer.Argument(help="A capture folder made by `tritonscope trace -o DIR`.")],
    after: AfterOpt = None,
    prove: ProveOpt = True,
    json_out: JsonOpt = False,
):
    """Why did it compile again: every kernel compiled more than once, each variant and what differs
    between them in the kernel's own terms (divisible by 16 or not, equal to 1, a pointer's alignment,
    None, a dtype, a constexpr such as triton.next_power_of_2(N)), the autotuner's configs told apart,
    torch.compile's failed guards, each compile's time and the program's line that launched it, and one
    fix per cause, compiled to prove it.

    Mark the end of the warmup in the program with tritonscope.mark("warmup") (or
    os.environ["TRITONSCOPE_MARK"] = "warmup"); --after warmup shows what compiled after it.

    Examples:

      tritonscope trace --target sm90 -o run/ -- python serve.py

      tritonscope recompiles run/

      tritonscope recompiles run/ --after warmup --no-prove

      tritonscope check run/ --no-compiles-after warmup     (the gate for CI: exit 1 on a late compile)
    """
    from ...app.recompiles import recompiles as explain

    with progress(f"reading the compiles of {folder}"):
        return explain(folder, after, fixes=True, prove=prove)
