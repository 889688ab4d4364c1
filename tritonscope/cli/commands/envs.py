from __future__ import annotations

from typing import Annotated

import typer

from ..installs import ensure_release
from ..messages import say
from ..options import JsonOpt
from ..runner import app, command

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
    from ...app.walk import releases

    return releases.listing()


@command("add", parent=envs_app)
def envs_add(
    release: Annotated[list[str], typer.Argument(help="Triton releases to install, e.g. 3.9.0.", metavar="RELEASE...")],
):
    """Install Triton releases now (--triton and --vary triton= install them on first use).

    Example:

      tritonscope envs add 3.5.1 3.9.0
    """
    from ...app.walk import releases

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
    from ...app.walk import releases
    from ...core.errors import UsageError

    if bool(release) == all_envs:
        raise UsageError("name the releases to remove, or give --all")
    names = [e.release for e in releases.installed_envs()] if all_envs else release
    for name in names:
        say(f"removed Triton {name}: {releases.remove(name).path}")
