"""The failures a user can cause, each with the exit code the CLI ends with.

0 ok, 1 the kernel failed to compile, 2 bad usage or input. Anything else that
escapes is a bug in tritonscope (exit 3, traceback with --debug).
"""

from __future__ import annotations

from .status import ExitStatus


class TritonscopeError(Exception):
    """A failure with a message meant for the user; never shown as a traceback."""

    exit_code: int = ExitStatus.USAGE

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(TritonscopeError):
    """Bad flags, names or values on the command line."""


class MissingValues(UsageError):
    """A kernel's constexpr with no value given, no default and no heuristic: the explorer opens on it
    (its variant screen sets the value), every other front end refuses it (exit 2). `kernel`: its
    KernelSpec, whose parameters the variant screen lists."""

    kernel: object = None


class TimedOut(UsageError):
    """A task ran past its time limit (`--timeout`, the API's `timeout=`) and its process was killed."""


class KernelFileError(TritonscopeError):
    """The kernel file is missing, is not Python, or fails to import."""


class CompileError(TritonscopeError):
    """Triton rejected the kernel; the message points at the kernel's own source line, which `where`
    holds as (file, line) where it is known (a front-end error: the explorer puts its cursor there)."""

    exit_code = ExitStatus.FAILED

    def __init__(self, message: str, hint: str | None = None, where: tuple[str, int] | None = None):
        super().__init__(message, hint)
        self.where = where


class Terminated(SystemExit):
    """A signal (SIGTERM, SIGHUP) ending the run: unwinds like Ctrl-C, and no handler of a kernel
    file's errors may take it for the file's own."""
