"""Writing files whole or not at all: under a temporary name beside them, then a rename."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import tempfile
from pathlib import Path

from .errors import TritonscopeError, UsageError


def write_text_atomically(path: Path, text: str) -> None:
    """Writes a file under a temporary name beside it, then renames it: never half a file."""
    write_bytes_atomically(path, text.encode())


def write_bytes_atomically(path: Path, data: bytes) -> None:
    path = path.resolve()
    if path.is_dir():
        raise UsageError(f"{path} is a directory; give a file name such as report.html")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def user_cache_dir() -> Path:
    """Where tritonscope keeps what outlives one run but not the installation ($XDG_CACHE_HOME)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tritonscope"


def write_checked(path: Path, text: str) -> None:
    """Keeps `text` in a cache file with its checksum, whole or not at all; a failure only costs time."""
    write_checked_bytes(path, text.encode())


def read_checked(path: Path) -> str | None:
    """What write_checked kept, or None when the file is missing, unreadable, cut short or edited."""
    data = read_checked_bytes(path)
    try:
        return data.decode() if data is not None else None
    except UnicodeDecodeError:
        return None


# --- output folders: whole or not at all, and only ever replacing what tritonscope wrote ----------

MARKER = ".tritonscope-output"  # in every folder tritonscope writes; --force replaces only those
# Beside OUT while it is written and swapped in: `.OUT.new.PID.*` (the new files) and `.OUT.old.PID.*`
# (the old folder, kept until the new one is in place). Both hold the marker.


def prepare_output_dir(out: Path, force: bool, protected: list[Path]) -> Path:
    """A fresh staging folder beside OUT, after checking that OUT may be written (and replaced)."""
    out = Path(out).expanduser()
    _refuse_precious(out, protected)
    recover(out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()):
        if not force:
            raise UsageError(f"--out {out}: directory is not empty", hint="use --force to replace its contents")
        if not (out / MARKER).is_file():
            raise UsageError(
                f"--out {out}: --force refused: tritonscope did not write this folder, so it will not replace it",
                hint="choose a new or empty folder",
            )
    try:
        out.resolve().parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new.{os.getpid()}.", dir=out.resolve().parent))
        (staging / MARKER).write_text("written by tritonscope; `--force` may replace this folder\n")
    except OSError as exc:
        discard_own(out)
        raise UsageError(f"--out {out}: cannot write there: {exc.strerror or exc}") from None
    except BaseException:  # a signal while the folder is being made: leave nothing behind
        discard_own(out)
        raise
    return staging


@contextlib.contextmanager
def signals_deferred():
    """Holds SIGINT, SIGTERM and SIGHUP back while a few renames run, so that a kill cannot land
    between them; a signal that came meanwhile is delivered right after."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def publish_output_dir(staging: Path, out: Path) -> None:
    """Puts a complete staging folder in OUT's place; the old OUT is kept aside until then."""
    with signals_deferred():
        _swap(staging, Path(out).expanduser().resolve())


def _swap(staging: Path, out: Path) -> None:
    os.chmod(staging, 0o755)
    if not out.exists():
        staging.rename(out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.{os.getpid()}.", dir=out.parent))
    old.rmdir()
    out.rename(old)
    try:
        staging.rename(out)
    except BaseException:
        old.rename(out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def discard(staging: Path) -> None:
    shutil.rmtree(staging, ignore_errors=True)


def discard_own(out: Path) -> None:
    """Removes every staging folder this process made for OUT, even one whose name it never got."""
    out = Path(out).expanduser().resolve()
    for leftover in out.parent.glob(f".{out.name}.new.{os.getpid()}.*"):
        shutil.rmtree(leftover, ignore_errors=True)


def recover(out: Path) -> None:
    """Finishes or undoes a swap that was cut short (a kill between the two renames), and drops
    staging folders left by runs that were killed while writing."""
    out = Path(out).expanduser().resolve()
    parent = out.parent
    if not parent.is_dir():
        return
    olds = [p for p in parent.glob(f".{out.name}.old.*") if (p / MARKER).is_file() and not _alive(p)]
    for leftover in olds:
        if not out.exists():
            leftover.rename(out)  # the old results come back
        else:
            shutil.rmtree(leftover, ignore_errors=True)
    for leftover in parent.glob(f".{out.name}.*"):
        ours = (leftover / MARKER).is_file() or _is_empty_dir(leftover)
        if leftover.is_dir() and ours and not _alive(leftover):
            shutil.rmtree(leftover, ignore_errors=True)


def _is_empty_dir(path: Path) -> bool:
    try:
        return path.is_dir() and not any(path.iterdir())
    except OSError:
        return False


def _alive(staging: Path) -> bool:
    """Whether the tritonscope that made a staging folder (its pid is in the name) still runs."""
    pid = staging.name.rsplit(".", 2)[-2] if staging.name.count(".") >= 3 else ""
    if not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _refuse_precious(out: Path, protected: list[Path]) -> None:
    """Refuses an output folder that is, or holds, the working directory, the home folder, the root,
    or any of `protected` (the kernel file, the traced program)."""
    target = out.resolve()
    precious = [
        ("the current directory", Path.cwd()),
        ("your home folder", Path.home()),
        ("the root folder", Path(target.anchor)),
    ] + [(f"{Path(p).name}, which the run needs", p) for p in protected]
    for what, path in precious:
        path = Path(path).expanduser().resolve()
        if path == target or target in path.parents:
            relation = "is" if path == target else "contains"
            raise UsageError(
                f"--out {out}: refused: it {relation} {what} ({path}); tritonscope did not write it and "
                f"would replace it",
                hint="give a new folder for the output, e.g. --out out/",
            )


def write_checked_bytes(path: Path, data: bytes) -> None:
    """Keeps `data` in a cache file behind its sha256, whole or not at all; a failure only costs time."""
    with contextlib.suppress(OSError, TritonscopeError):  # a read-only or full cache only costs time
        write_bytes_atomically(path, hashlib.sha256(data).digest() + data)


def read_checked_bytes(path: Path) -> bytes | None:
    """What write_checked_bytes kept, or None when it is missing, unreadable, cut short or edited."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    digest, data = raw[:32], raw[32:]
    return data if len(raw) >= 32 and hashlib.sha256(data).digest() == digest else None
