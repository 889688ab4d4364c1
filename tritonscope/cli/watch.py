"""`dump --watch` and `explain --watch`: the command's output drawn again after every save of the
kernel file, for a split terminal (the explorer's non-interactive twin). A compile that fails says
why and the watch goes on; Ctrl-C ends it."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.errors import TritonscopeError, UsageError
from ..core.model import VariantRequest
from ..core.quantities import count
from ..core.source import local_file
from ..core.watching import saves
from .messages import say
from .runner import ENV, emit

CLEAR = "\x1b[2J\x1b[3J\x1b[H"  # the screen and its scrollback cleared, the cursor home


def watched(request: VariantRequest, make: Callable[[], Any], options: dict[str, Any]) -> None:
    """Draws `make()`'s result now and after each save, until Ctrl-C (exit 130)."""
    from ..render.registry import renderer

    file = local_file(request.source)
    if file is None:
        raise UsageError(f"--watch needs a kernel file to watch; {request.file} is compiled already")
    ENV.no_pager = True  # each drawing is followed by the next: a pager would hold it
    stdout = ENV.stdout
    watched_files = _with_helpers(file)
    saved = saves(watched_files)  # watching from now: a save while a compile runs draws again after it
    for drawing in itertools.count():
        if drawing and stdout.isatty():
            stdout.write(CLEAR)
        try:
            result = make()
            emit(renderer(type(result), ENV.fmt, width=ENV.width, color=ENV.color, **options), result)
        except TritonscopeError as exc:  # the file is being edited: said, and the next save tried
            say(f"error: {exc.message}", "bold red")
            if exc.hint:
                say(f"hint: {exc.hint}", "dim")
        now = _with_helpers(file)
        if now != watched_files:  # an import added or taken out: its file watched from now
            watched_files, saved = now, saves(now)
        helpers = f" and the {count(len(watched_files) - 1, 'file')} it imports" if len(watched_files) > 1 else ""
        say(f"watching {_shown(file)}{helpers}: every save draws this again (Ctrl-C stops)", "dim")
        next(saved)


def _with_helpers(file: Path) -> tuple[Path, ...]:
    """The kernel file and the user's own files it imports (a helper's save draws again too)."""
    from ..app.walk.packages import helper_files

    return (file, *helper_files(file))


def _shown(file: Path) -> str:
    try:
        return str(file.relative_to(Path.cwd()))
    except ValueError:
        return str(file)
