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
    typer.Option(
        "--after",
        metavar="MARK",
        help="Only the kernels compiled after the program passed this mark (warmup), each with its whole history.",
    ),
]
ProveOpt = Annotated[
    bool,
    typer.Option(
        "--prove/--no-prove",
        help="Compile each fix to show the two launches then share one variant, and what it costs (default: on).",
    ),
]
ShapesOpt = Annotated[
    str | None,
    typer.Option(
        "--shapes",
        metavar="NAME=LO..HI,...",
        help="Predict: the sizes the server will see, by the names its launch lines use (batch=1..256,seq=1..8192); "
        "the capture is its warmup (with --after MARK, what came before the mark).",
    ),
]
CompileOpt = Annotated[
    bool, typer.Option("--compile", help="With --shapes: compile each predicted variant once, for its compile time.")
]


@command()
def recompiles(
    folder: Annotated[Path, typer.Argument(help="A capture folder made by `tritonscope trace -o DIR`.", metavar="DIR")],
    after: AfterOpt = None,
    prove: ProveOpt = True,
    shapes: ShapesOpt = None,
    compile_: CompileOpt = False,
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

    With --shapes, predict instead, with no GPU, which kernels will compile again after a warmup
    capture and for which sizes (--compile: compile each predicted variant once, for its time):

      tritonscope trace --target sm90 -o warm/ -- python serve.py --requests 0

      tritonscope recompiles warm/ --shapes batch=1..256,seq=1..8192
    """
    from ...core.errors import UsageError

    if shapes is None:
        if compile_:
            raise UsageError("--compile compiles the predicted variants: give the sizes with --shapes")
        from ...app.recompiles import recompiles as explain

        with progress(f"reading the compiles of {folder}"):
            return explain(folder, after, fixes=True, prove=prove)
    from ...app.recompile_predict import predict
    from .. import argtypes

    with progress(f"predicting the compiles of {folder}"):
        return predict(folder, argtypes.size_ranges(shapes), after, compile_)
