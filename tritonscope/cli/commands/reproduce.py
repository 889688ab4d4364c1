from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..messages import say
from ..output import File, Output
from ..runner import command


@command()
def reproduce(
    reference: Annotated[str, typer.Argument(metavar="DIR/:KERNEL", help="A kernel of a `tritonscope trace` capture.")],
    out: Annotated[
        str | None,
        typer.Option(
            "--out", "-o", metavar="FILE", help="The script to write (default repro_KERNEL.py; - for stdout)."
        ),
    ] = None,
    launch: Annotated[int, typer.Option("--launch", metavar="K", help="Which recorded launch, 1 = the first.")] = 1,
    force: Annotated[bool, typer.Option("--force", help="Replace the script if it exists.")] = False,
):
    """Write a standalone script that launches a captured kernel again, as the traced program did.

    The script needs torch, Triton and a GPU, not tritonscope. It compiles the kernel with the
    captured specialization and options, checks that the PTX (AMDGCN) hash equals the captured
    one, launches it with the captured grid on random arguments shaped as the captured ones
    (seeded; integer tensors in their recorded range) and prints the time. Also printed: the
    `tritonscope dump` line that specializes the kernel as that launch did.

    Examples:

      tritonscope reproduce run1/:add_kernel

      tritonscope reproduce run1/:triton_poi_fused_add_0 --launch 2 -o repro.py
    """
    from ...app.reproduce import reproduce as make_script
    from ...core.launches import grid_text, tensor_shapes
    from .. import argtypes

    result = make_script(argtypes.cached_kernel(reference), launch)
    script = _script(out or f"repro_{result.kernel}.py", force)
    shapes = tensor_shapes(result.launch) or "no tensors"
    say(f"launch {result.number} of {result.launches}: grid {grid_text(result.launch)}, {shapes}")
    for note in result.notes:
        say(note, "yellow")
    say(f"specialized as that launch: {result.dump_command}")
    if script is None:  # -o -: the script is the output
        return Output(result, fmt="script")
    return Output(result, shown=False, files=(script,))


def _script(out: str, force: bool) -> File | None:
    """Where the script goes: a file (not over one that exists, without --force), or stdout (None)."""
    from ...core.errors import UsageError

    if out == "-":
        return None
    path = Path(out)
    if path.exists() and not force:
        raise UsageError(f"-o {out}: exists", hint="use --force to replace it, or -o - to print the script")
    return File(path, "script", "-o", said="wrote {path}; run it with: python {path}")
