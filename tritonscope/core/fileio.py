"""Writing files whole or not at all: under a temporary name beside them, then a rename."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Callable
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


# --- reading: only regular files, each remembered so that no output of the run replaces it -------

_READ: dict[tuple[int, int], Path] = {}  # (device, inode) -> the path of a file this run reads
_WRITTEN: dict[tuple[int, int], Path] = {}  # the files this run wrote, each once


def new_run() -> None:
    """A command starts: no file is written by it yet (a process may run several, as tests do)."""
    _WRITTEN.clear()


RESULTS_FD: int | None = None  # the command's own stdout (cli/runner.py points descriptor 1 at stderr)
_STDOUT_NAMES = ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")


class NotRegularFile(OSError):
    """A path tritonscope would read that is a pipe, device, socket or folder: reading it could block
    forever or never end, so it is refused (an OSError, so every reader's `cannot read` covers it)."""

    def __str__(self) -> str:  # what it is, as `cannot read PATH: ...` says it (no `[Errno 0]`)
        return str(self.strerror)


def _kind(mode: int) -> str:
    kinds: tuple[tuple[Callable[[int], bool], str], ...]
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"))
    kinds += ((stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def _why_not(path: Path, exc: OSError) -> str:
    """Why `path` cannot be written: a folder above it that is a file (`/dev/null/x`: the system says
    "File exists" or "Not a directory"), else the system's words."""
    for parent in path.parents:
        if parent.exists():
            return f"{parent} is not a folder" if not parent.is_dir() else str(exc.strerror or exc)
    return str(exc.strerror or exc)


def read_input(path: Path | str) -> bytes:
    """The bytes of a file tritonscope reads, which must be a regular file. Opened without waiting
    (a named pipe with no writer would block the open), checked, then read; remembered as read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(0, f"{_kind(info.st_mode)}, not a regular file", str(path))
        _READ[(info.st_dev, info.st_ino)] = Path(path)
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read()
    finally:
        os.close(fd)


def read_input_text(path: Path | str) -> str:
    """read_input, as UTF-8 text (a UnicodeDecodeError, a ValueError, for the caller to name)."""
    return read_input(path).decode()


def note_read(path: Path | str) -> None:
    """Remembers a file the run reads elsewhere (a kernel file imported by a worker)."""
    with contextlib.suppress(OSError, ValueError):
        info = os.stat(path)
        if stat.S_ISREG(info.st_mode):
            _READ[(info.st_dev, info.st_ino)] = Path(path)


# --- writing one output file -------------------------------------------------------------------


def write_output(path: Path | str, data: bytes, flag: str, protected: tuple[Path | str, ...] = ()) -> None:
    """The one writer of single-file outputs (-o, --html, --junit, baselines). Refuses a file this run
    reads (the kernel file, pyproject.toml, a baseline it compares with, `protected`) or already
    wrote; writes through a character device or a named pipe (/dev/null, /dev/stdout, `<(...)`)
    rather than replacing it; refuses folders, block devices and sockets; else replaces the file
    whole or not at all (a symbolic link is followed: the file it names is replaced)."""
    for path_read in protected:
        note_read(path_read)
    given = Path(path)
    if str(given) in _STDOUT_NAMES and RESULTS_FD is not None:  # descriptor 1 is stderr while a command runs
        _write_all(RESULTS_FD, data, flag, given)
        return
    try:
        target = given.expanduser().resolve()
        info = os.stat(target) if target.exists() else None
    except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long, no permission
        raise UsageError(f"{flag} {given}: cannot write there: {getattr(exc, 'strerror', None) or exc}") from None
    if info is not None:
        key = (info.st_dev, info.st_ino)
        if key in _READ:
            raise UsageError(
                f"{flag} {given}: refused: it is {_READ[key]}, which this run reads; writing there would destroy it",
                hint="give another file name for the output",
            )
        if key in _WRITTEN:
            raise UsageError(
                f"{flag} {given}: refused: this run already wrote {_WRITTEN[key]}", hint="give each output its own file"
            )
        if stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode):
            _write_through(target, data, flag, given)
            return
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"{flag} {given}: refused: it is {_kind(info.st_mode)}", hint="give a file name")
    try:
        write_bytes_atomically(target, data)
        info = os.stat(target)
    except OSError as exc:
        raise UsageError(f"{flag} {given}: cannot write there: {_why_not(target, exc)}") from None
    _WRITTEN[(info.st_dev, info.st_ino)] = given


def _write_through(target: Path, data: bytes, flag: str, given: Path) -> None:
    """Writes into a device or pipe as it is (a pipe with no reader is refused, not waited on)."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UsageError(
            f"{flag} {given}: cannot write there: {exc.strerror or exc} (a pipe with no reader?)"
        ) from None
    try:
        os.set_blocking(fd, True)
        _write_all(fd, data, flag, given)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes, flag: str, given: Path) -> None:
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        raise UsageError(f"{flag} {given}: cannot write there: {exc.strerror or exc}") from None


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
        raise UsageError(f"--out {out}: cannot write there: {_why_not(out.resolve(), exc)}") from None
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
    if exchange(staging, out):  # one step: a kill can land before it or after it, never between
        shutil.rmtree(staging, ignore_errors=True)  # the old folder, now under the staging name
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


def exchange(first: Path, second: Path) -> bool:
    """Swaps two existing paths in one atomic step: Linux's renameat2(RENAME_EXCHANGE). False where
    the system or the file system has no such call (the caller then renames twice)."""
    import ctypes
    import errno
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False  # a C library older than glibc 2.28
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_cwd, rename_exchange = -100, 2
    if renameat2(at_cwd, os.fsencode(first), at_cwd, os.fsencode(second), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EPERM):
        return False
    raise OSError(code, os.strerror(code), str(second))


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
