"""Choosing a command's renderer from its output flags."""

from __future__ import annotations

from typing import Annotated

import typer

from ..app import ENV

WrapOpt = Annotated[
    bool, typer.Option("--wrap", help="Fold long lines instead of cutting them at the edge (where … marks a cut).")
]


def terminal(view_class, json_out: bool, kind: str | None = None, **options):
    """The JSON renderer with --json, else the terminal view at this terminal's width and colours."""
    if json_out:
        from ...render.json import JsonRenderer

        return JsonRenderer(kind)
    from ...render.terminal.base import Terminal

    return view_class(Terminal(ENV.width, ENV.color), **options)
