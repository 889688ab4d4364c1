"""Other Triton releases installed where the command line runs, so that the download shows.

Any request naming a release (`--triton`, `--vary triton=`) passes here before work starts: a
release not installed yet is installed with a download bar (a line before and after where
stderr is no terminal), instead of stalling silently inside the compile that needs it. With
--cluster nothing is installed here: the nodes compile, each in its own environment.
"""

from __future__ import annotations

import contextlib
import sys

from . import status
from .messages import say, stderr_console
from .runner import ENV


def ensure_release(release: str | None) -> None:
    """The release's environment made now, with a progress bar, if it is not the running Triton and
    is not installed yet (so that no command stalls silently on a download)."""
    from ..app.walk import releases
    from ..isolate import on_cluster

    if release is None or on_cluster():  # on a cluster each node finds or makes its own (releases.on_node)
        return
    if releases.is_running(release) or releases.env_for(release).ready:
        return
    with _install_progress(release) as on_progress:
        releases.python_for(release, on_progress)


def ensure_releases(axes) -> None:
    """Every release --vary triton= names, installed (the request's own is, by `request_from`)."""
    from ..app.walk import releases

    for release in dict.fromkeys(releases.checked(v) for a in axes if a.name == "triton" for v in a.values):
        ensure_release(release)


@contextlib.contextmanager
def _install_progress(release: str):
    """A download bar on stderr where it is a terminal, else a line before and after."""
    from ..app.walk import releases

    where = releases.env_for(release).path
    if not sys.stderr.isatty() or ENV.debug:
        say(f"installing Triton {release} into {where} (first use; a few hundred MB)")
        yield lambda *_: None
        say(f"installed Triton {release}")
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TimeElapsedColumn())
    with status.paused(), Progress(*columns, console=stderr_console(), transient=True) as bar:
        task = bar.add_task(f"Triton {release}", total=None)

        def advance(done: int | None, total: int | None, line: str) -> None:
            if done is not None:
                bar.update(task, completed=done, total=total)
            else:
                bar.update(task, description=f"Triton {release}: {line[:40]}")

        yield advance
    say(f"installed Triton {release} into {where}")
