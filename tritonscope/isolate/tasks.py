"""What travels to an executor and back: a Task (plain, picklable data naming a function by its module
and name) and its Outcome; `task` names a task's function from the function itself, and `perform`
is what every executor's process does with a task."""

from __future__ import annotations

import importlib
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.errors import CompileError, KernelFileError, TimedOut, TritonscopeError, UsageError
from ..core.limits import OpenFilesLimit, open_files_limit
from ..core.status import ExitStatus


@dataclass(frozen=True)
class Task:
    function: str  # "package.module:function", imported where the task runs (`task` makes it)
    args: tuple = ()
    python: str | None = None  # the interpreter to run it (another Triton release's); None: this one
    files: tuple[str, ...] = ()  # local files its arguments name, sent with it to a cluster's nodes


def task(function: Callable[..., Any], *args: Any, python: str | None = None, files: tuple[str, ...] = ()) -> Task:
    """A Task calling `function(*args)`, named from the function: `task(compile_request, request)` is
    Task("tritonscope.app.walk.prepare:compile_request", (request,))."""
    return Task(name_of(function), args, python, tuple(files))


def name_of(function: Callable[..., Any]) -> str:
    """A task's name for `function`, "module:function", where a worker can import it by that name: it
    is defined at the top level of an importable module (decorated: the module's name for it is the
    decorator's result); else ValueError."""
    module, name = getattr(function, "__module__", None), getattr(function, "__qualname__", "")
    found = getattr(sys.modules.get(module or ""), name, None) if "." not in name else None
    if module in (None, "__main__") or found is not function:
        called = f"{module}.{name}" if name else repr(function)
        raise ValueError(
            f"{called} cannot be a task's function: a worker imports it by module and name, so it must be"
            " defined at the top level of an importable module"
        )
    return f"{module}:{name}"


def function_named(name: str) -> Callable[..., Any]:
    """The function a task's name names (imported here): the inverse of `name_of`."""
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


class Cancelled(Exception):  # noqa: N818 - a state the caller asked for, not a failure of the task
    """Raised by `Outcome.unwrap` for a task its caller cancelled."""


@dataclass
class Outcome:
    value: Any = None
    error: str | None = None  # the message when the task failed
    exit_code: int = 0  # the failure's exit code: 1 compile, 2 usage or input, 3 a tritonscope bug
    error_type: str = ""  # the TritonscopeError subclass, to raise the same again
    timed_out: bool = False  # the task ran past the executor's timeout and its process was killed
    cancelled: bool = False  # its handle's `cancel()` ended it: its process was killed

    @property
    def ok(self) -> bool:
        return self.error is None

    def unwrap(self) -> Any:
        """The value, or the task's error raised again in this process."""
        if self.error is None:
            return self.value
        if self.cancelled:
            raise Cancelled(self.error)
        kind = {"CompileError": CompileError, "KernelFileError": KernelFileError}.get(self.error_type, UsageError)
        if self.exit_code == 3:
            raise RuntimeError(self.error)
        if self.timed_out:  # a compile as big as a tile of 2**20 takes its time: not the request's fault
            raise TimedOut(self.error, hint="give it longer: --timeout SECONDS")
        raise kind(self.error)


def cancelled() -> Outcome:
    """The outcome of a task its caller cancelled."""
    return Outcome(error="cancelled", exit_code=ExitStatus.INTERRUPTED, cancelled=True)


class Relayed(Exception):  # noqa: N818 - not an error of its own: another task's, passed on
    """Raised by a task that ran a task of its own (a node's worker of another release): that task's
    failed Outcome becomes this task's, unchanged (message, exit code, kind, time-out)."""

    def __init__(self, outcome: Outcome):
        super().__init__(outcome.error)
        self.outcome = outcome


def _limit_met(limit: OpenFilesLimit) -> Outcome:
    """This worker's `ulimit -n` met: its message and hint travel, for the parent to stop the run with
    (Workers.run), as every other task would meet it too."""
    return Outcome(error=f"{limit.message}\n{limit.hint}", exit_code=limit.exit_code, error_type=type(limit).__name__)


def perform(task: Task) -> Outcome:
    """The task run in this process: its value, or its failure as a message and an exit code (a
    TritonscopeError's own; 3 for anything else, a bug); never raises."""
    try:
        return Outcome(value=function_named(task.function)(*task.args))
    except Relayed as relayed:
        return relayed.outcome
    except OpenFilesLimit as exc:  # the compiler met `ulimit -n`
        return _limit_met(exc)
    except TritonscopeError as exc:
        message = exc.message + (f" ({exc.hint})" if exc.hint else "")
        return Outcome(error=message, exit_code=exc.exit_code, error_type=type(exc).__name__)
    except BaseException as exc:  # noqa: BLE001 - anything else is reported, the parent carries on
        limit = open_files_limit(exc)
        if limit is not None:
            return _limit_met(limit)
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return Outcome(error=detail, exit_code=ExitStatus.BUG)
