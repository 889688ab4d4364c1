from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..messages import say
from ..options import JsonOpt
from ..runner import app, command

cache_app = typer.Typer(help="Read Triton's cache, or a capture made by `tritonscope trace`.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


@command("list", parent=cache_app)
def cache_list(
    directory: Annotated[
        Path | None,
        typer.Argument(
            help="A Triton cache or a capture directory (default: TRITON_CACHE_DIR or ~/.triton/cache).",
            metavar="[DIR]",
        ),
    ] = None,
    json_out: JsonOpt = False,
):
    """List the compiled kernels in a Triton cache or capture directory, newest first.

    Any of them can then be shown without recompiling: tritonscope dump DIR/:NAME

    Examples:

      tritonscope cache list

      tritonscope cache list run1/
    """
    from ...app.catalog import cache_list as find_entries

    result = find_entries(directory)
    for problem in result.skipped:
        say(problem, "yellow")
    return result
