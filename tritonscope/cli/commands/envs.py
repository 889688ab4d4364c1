from __future__ import annotations

import contextlib
import sys
from typing import Annotated

import typer

from ..app import ENV, _stderr_console, app, command, emit, say
from ..options import JsonOpt
from .render import terminal

envs_app = typer.Typer(
    help="The Triton releases tritonscope keeps for --triton and --vary triton= (one environment each).",
    no_args_is_help=True,
)
app.add_typer(envs_app, name="envs")


@command("list", parent=envs_app)
def envs_list(json_out: JsonOpt = False):
    """List the Triton releases installed for --triton and --vary triton=, with their size.

    Example:

      tritonscope envs list
    """
    from ...app import releases
    from ...render.terminal.envs import EnvsView

    emit(terminal(EnvsView, json_out, "envs"), releases.listing())


@command("add", parent=envs_app)
def envs_add(
    release: Annotated[list[str], typer.Argument(help="Triton releases to install, e.g. 3.9.0.", metavar="RELEASE...")],
):
    """Install Triton releases now (--triton and --vary triton= install them on first use).

    Example:

      tritonscope envs add 3.5.1 3.9.0
    """
    from ...app import releases

    for name in release:
        ensure_release(releases.checked(name))
        say(f"Triton {name}: {releases.env_for(name).path}")


@command("remove", parent=envs_app)
def envs_remove(
    release: Annotated[list[str] | None, typer.Argument(help="Releases to remove.", metavar="[RELEASE...]")] = None,
    all_envs: Annotated[bool, typer.Option("--all", help="Remove every installed release.")] = False,
):
    """Remove installed Triton releases (they are installed again when next asked for).

    Examples:

      tritonscope envs remove 3.5.1

      tritonscope envs remove --all
    """
    from ...app import releases
    from ...core.errors import UsageError

    if bool(release) == all_envs:
        raise UsageError("name the releases to remove, or give --all")
    names = [e.release for e in releases.installed_envs()] if all_envs else release
    for name in names:
        say(f"removed Triton {name}: {releases.remove(name).path}")


def ensure_release(release: str | None) -> None:
    """The release's environment made now, with a progress bar, if it is not the running Triton and
    is not installed yet (so that no command stalls silently on a download)."""
    from ...app import releases

    if release is None or releases.is_running(release) or releases.env_for(release).ready:
        return
    with _install_progress(release) as on_progress:
        releases.python_for(release, on_progress)


def ensure_releases(request, axes) -> None:
    """Every release a command's request and --vary triton= name, installed."""
    from ...app import releases

    named = [v for a in axes if a.name == "triton" for v in a.values]
    for release in dict.fromkeys([request.triton, *(releases.checked(v) for v in named)]):
        ensure_release(release)


@contextlib.contextmanager
def _install_progress(release: str):
    """A download bar on stderr where it is a terminal, else a line before and after."""
    from ...app import releases

    where = releases.env_for(release).path
    if not sys.stderr.isatty() or ENV.debug:
        say(f"installing Triton {release} into {where} (first use; a few hundred MB)")
        yield lambda *_: None
        say(f"installed Triton {release}")
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TimeElapsedColumn())
    with Progress(*columns, console=_stderr_console(), transient=True) as bar:
        task = bar.add_task(f"Triton {release}", total=None)

        def advance(done: int | None, total: int | None, line: str) -> None:
            if done is not None:
                bar.update(task, completed=done, total=total)
            else:
                bar.update(task, description=f"Triton {release}: {line[:40]}")

        yield advance
    say(f"installed Triton {release} into {where}")
