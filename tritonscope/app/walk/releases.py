"""Other Triton releases, for `--triton X`, `--vary triton=A,B` and `tritonscope envs`.

Each release lives in a virtual environment of its own under the user cache (envs/triton-X),
made on first use with this Python and pip, and holding Triton alone. A request that names a
release other than the running one is carried out by a worker running that environment's
interpreter (isolate/local.py puts this tritonscope on its path), so the same kernel file and the same
flags meet the other release's compiler; what comes back is the same result type as here.

On a Ray cluster (`--cluster`) the same holds on each node: a task of another release is sent as
`on_node` (see `task`), which runs it in the node's own environment of that release, found in the
node's user cache or made there on first use, exactly as here. The head installs nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import inspect
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import isolate
from ...core import scratch
from ...core.errors import UsageError
from ...core.fileio import user_cache_dir
from ...isolate import Program, Relayed, Task, Workers, function_named, name_of, on_cluster
from ...results.catalog import EnvsListing
from ...triton_api import version

_RELEASE = re.compile(r"^\d+\.\d+(\.\d+)?((a|b|rc|\.post|\.dev)\d+)?$")
Progress = Callable[[int | None, int | None, str], None]  # (bytes done, bytes in all, what pip is doing)


@dataclass(frozen=True)
class ReleaseEnv:
    release: str
    path: Path

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    @property
    def ready(self) -> bool:
        """Whether this release of Triton is installed there (made by tritonscope, or by hand)."""
        if not self.python.exists():
            return False
        found = self.path.glob("lib/python*/site-packages/triton-*.dist-info")
        return any(_padded(d.name.split("-")[1].removesuffix(".dist-info")) == _padded(self.release) for d in found)

    def damage(self) -> str | None:
        """What is wrong with a finished environment's Triton, read off its files (no process started):
        its package deleted, or its library emptied or cut (a full disk, a hand that tidied up)."""
        for site in self.path.glob("lib/python*/site-packages"):
            if not any(site.glob("triton-*.dist-info")):
                continue
            package = site / "triton"
            if not (package / "__init__.py").is_file():
                return f"its triton package is missing ({package})"
            libraries = sorted((package / "_C").glob("libtriton*.so"))
            if not libraries:
                return f"its libtriton.so is missing ({package / '_C'})"
            for library in libraries:
                try:
                    with open(library, "rb") as file:
                        if file.read(4) != b"\x7fELF":
                            return f"{library} is empty or not a library"
                except OSError as exc:
                    return f"{library} cannot be read ({exc.strerror})"
        return None

    def size_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file() and not f.is_symlink())


def envs_dir() -> Path:
    return user_cache_dir() / "envs"


def checked(release: str) -> str:
    """A release as pip names it (3.9.0), refused when it is not one or is older than tritonscope supports."""
    text = str(release).strip()
    if not _RELEASE.match(text):
        raise UsageError(f"'{release}' is not a Triton release: give one like 3.6.0")
    if version.release_tuple(text)[:2] < version.OLDEST:
        raise UsageError(f"Triton {text} is older than tritonscope supports (3.5 and newer)")
    return text


def is_running(release: str) -> bool:
    """Whether `release` is the Triton this process imports (3.9 and 3.9.0 are the same release)."""
    return _padded(release) == _padded(version.installed())


def _padded(text: str) -> tuple[int, ...]:
    parts = version.release_tuple(text)
    return parts + (0,) * (3 - len(parts))


def env_for(release: str) -> ReleaseEnv:
    return ReleaseEnv(release, envs_dir() / f"triton-{checked(release)}")


def installed_envs() -> list[ReleaseEnv]:
    """The finished environments, oldest release first."""
    found = [ReleaseEnv(p.name.removeprefix("triton-"), p) for p in envs_dir().glob("triton-*")]
    return sorted((e for e in found if e.ready), key=lambda e: _padded(e.release))


def listing() -> EnvsListing:
    _tidy()
    envs = tuple((e.release, e.path, e.size_bytes()) for e in installed_envs())
    return EnvsListing(envs_dir(), version.installed(), envs)


def python_for(release: str | None, on_progress: Progress | None = None) -> str | None:
    """The interpreter that compiles with `release`: None for the running Triton, else its
    environment's, made first if there is none."""
    if release is None or is_running(release):
        return None
    env = env_for(release)
    if Path(sys.prefix).resolve() == env.path.resolve():
        # This process is that environment's worker, and its Triton is another release: starting
        # a worker there again would start one more, without end. Checked here, once, for all.
        raise UsageError(
            f"{env.path} should hold Triton {release}, but its Python imports Triton {version.installed()}",
            hint=f"remove it (tritonscope envs remove {release}) and run again: it is made afresh",
        )
    if not env.ready:
        with _creating(env):  # one pip at a time per release and machine (a node's workers start together)
            if not env.ready:
                create(env, on_progress)
    damage = env.damage()
    if damage is not None:  # its worker would fail to import Triton, taken for a bug in tritonscope
        raise UsageError(
            f"the environment of Triton {release} ({env.path}) is broken: {damage}",
            hint=f"remove it and run again, which makes it afresh: tritonscope envs remove {release}",
        )
    return str(env.python)


@contextlib.contextmanager
def _creating(env: ReleaseEnv):
    """Holds a lock on the environments' folder while one is made (no file of its own left behind);
    another process waits, then finds it made."""
    envs_dir().mkdir(parents=True, exist_ok=True)
    folder = os.open(envs_dir(), os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        _remove_abandoned_staging()  # no install runs now: every staging folder is a killed one's
        yield
    finally:
        os.close(folder)  # the lock goes with it


def _tidy() -> None:
    """The staging folders killed installs left, removed where no install runs now (else left to it)."""
    if not envs_dir().is_dir():
        return
    folder = os.open(envs_dir(), os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        _remove_abandoned_staging()
    except BlockingIOError:
        pass  # an install is running
    finally:
        os.close(folder)


def create(env: ReleaseEnv, on_progress: Progress | None = None) -> None:
    """Makes the environment in a staging folder and moves it into place once Triton is installed,
    so an interrupted or failed install leaves nothing half-made."""
    import venv

    envs_dir().mkdir(parents=True, exist_ok=True)
    staging = envs_dir() / f".{env.path.name}.new.{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        with_own_pip = not _pip_can_target()
        venv.EnvBuilder(with_pip=False, symlinks=True).create(staging)
        if with_own_pip:  # venv's own ensurepip runs pip outside the one runner: it would outlive a kill
            _run_pip([str(staging / "bin" / "python"), "-m", "ensurepip", "--upgrade", "--default-pip"])
        _pip_install(staging, env, with_own_pip, on_progress or (lambda *_: None))
        if env.ready:  # another tritonscope finished the same environment meanwhile
            return
        shutil.rmtree(env.path, ignore_errors=True)  # an unfinished one
        os.replace(staging, env.path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _remove_abandoned_staging() -> None:
    """The staging folders of installs whose tritonscope was killed outright (SIGKILL: nothing ran to
    remove them; a few hundred MB each), only those named as `create` names them. Called with the
    environments' lock held, which every install holds: none of them is being written. Their process
    id is not asked: in a fresh container a later run may have the killed one's."""
    for folder in envs_dir().glob(".triton-*.new.*"):
        if folder.name.rpartition(".")[2].isdigit() and folder.is_dir() and not folder.is_symlink():
            shutil.rmtree(folder, ignore_errors=True)


def _run_pip(command: list[str]) -> list[str]:
    """Runs pip (or ensurepip) through the one runner: stopped with what it started on Ctrl-C, SIGTERM
    or SIGHUP, and when tritonscope is killed; its temporary files in the run's own folder."""
    env = {**os.environ, **scratch.environ()}
    with Program(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as pip:
        finished = pip.finish()
    lines = finished.stdout.splitlines() if isinstance(finished.stdout, str) else []  # text=True: a str
    if finished.returncode != 0:
        raise UsageError(f"could not set up pip for Triton's environment: {lines[-1] if lines else 'ensurepip failed'}")
    return lines


def _pip_can_target() -> bool:
    """pip 24.1+ here can install into another environment (--python) with a raw progress bar."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    with contextlib.suppress(PackageNotFoundError):
        return version.release_tuple(installed_version("pip"))[:2] >= (24, 1)
    return False


def _pip_install(staging: Path, env: ReleaseEnv, with_own_pip: bool, on_progress: Progress) -> None:
    release = env.release
    python = str(staging / "bin" / "python")
    if with_own_pip:
        command = [python, "-m", "pip", "install", "--progress-bar", "off"]
    else:
        command = [sys.executable, "-m", "pip", "--python", python, "install", "--progress-bar", "raw"]
    # numpy: grid runs Triton's interpreter, which needs it (below 2.4 for Triton 3.6's).
    command += ["--disable-pip-version-check", "--no-input", "numpy<2.4", f"triton=={release}"]
    # Stopped on Ctrl-C or SIGTERM (Program's exit): pip must not go on writing into the staging folder.
    environ = {**os.environ, **scratch.environ()}  # pip's build folders: removed with the run however it ends
    with Program(command, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as pip:
        lines = _follow(pip.process, on_progress)
        finished = pip.finish()
    if finished.returncode != 0:
        reason = next((x for x in reversed(lines) if x.startswith("ERROR")), lines[-1] if lines else "pip failed")
        by_hand = f"python -m venv {env.path} && {env.path}/bin/pip install {shlex.quote(f'triton=={release}')}"
        offline = any(re.search(r"connection|could not fetch|network is unreachable", x, re.I) for x in lines)
        if not offline and f"No matching distribution found for triton=={release}" in reason:
            raise UsageError(f"Triton {release} is not on the package index ({reason})", hint=by_hand)
        raise UsageError(
            f"could not install Triton {release} for tritonscope: {reason}",
            hint=f"this needs network access to the package index once; or by hand: {by_hand}",
        )


def _follow(process: subprocess.Popen, on_progress: Progress) -> list[str]:
    """pip's output as it comes, to the progress callback; its lines other than the download's."""
    lines = []
    for line in process.stdout or ():  # always a pipe here
        line = line.strip()
        progress = re.match(r"Progress (\d+) of (\d+)", line)
        if progress:
            on_progress(int(progress[1]), int(progress[2]), "downloading")
        elif line:
            lines.append(line)
            on_progress(None, None, line)
    return lines


def remove(release: str) -> ReleaseEnv:
    env = env_for(release)
    if not env.path.exists():
        have = ", ".join(e.release for e in installed_envs()) or "none"
        raise UsageError(f"no environment for Triton {release} (installed: {have})")
    shutil.rmtree(env.path)
    return env


def task(
    function: Callable[..., Any],
    args: tuple,
    release: str | None,
    files: tuple[str, ...] = (),
    here: Callable[..., Any] | None = None,
) -> Task:
    """A Task running `function(*args)` under Triton `release`, wherever the executor runs it, or
    `here(*args)` (default: `function`) where that release is the one running (or None names it).
    Locally: another release's task runs in a worker of this machine's environment of it (made if
    missing). On a cluster: it is sent as `on_node`, so that each node finds or makes its own
    environment and makes the same choice between `function` and `here`; the head needs none."""
    if on_cluster() and release is not None:
        return isolate.task(on_node, release, name_of(function), name_of(here or function), args, files=files)
    python = python_for(release)
    return isolate.task(function if python else here or function, *args, python=python, files=files)


_node_workers: dict[str, Workers] = {}  # on a node: a worker per release, kept for the node's next tasks


def on_node(release: str, function: str, here: str, args: tuple):
    """In a cluster node's Ray worker: `here(*args)` in this process if the node runs `release`, else
    `function(*args)` in a worker of the node's environment of it (found, or made with pip on first
    use: the node needs the package index, or a pip configuration naming a wheel folder). The worker
    is kept, so the node's next tasks of that release skip its start-up; it dies with this process
    (isolate's guarantee), so a task cancelled by force ends it too. The time limit is the driver's:
    it cancels the Ray task."""
    import socket

    try:
        python = python_for(release)
    except UsageError as exc:  # said with the node's name: the driver's user reads it
        raise UsageError(f"on the cluster's node {socket.gethostname()}: {exc.message}", hint=exc.hint) from None
    if python is None:
        return function_named(here)(*args)
    if python not in _node_workers:
        _node_workers[python] = Workers(timeout=24 * 3600)
    outcome = _node_workers[python].run([Task(function, args, python)])[0]
    if not outcome.ok:
        raise Relayed(outcome)  # the task's outcome is that worker's, as a local run's would be
    return outcome.value


def in_release(function):
    """Runs an app function whose first argument is a request in the Triton release the request
    names: here when that is the running release, else in a worker of the release's environment."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def run(request, *args, **kwargs):
        python = python_for(request.triton)
        if python is None:
            return function(request, *args, **kwargs)
        bound = signature.bind(request, *args, **kwargs)  # a task's arguments travel by position
        with Workers(timeout=24 * 3600) as workers:  # the function keeps its own time limits
            return workers.call(isolate.task(run, *bound.args, python=python))  # named as the module names it

    return run
