"""The supervisor of a foreign program (programs.Program), its parent:

    python -S supervisor.py PARENT GRACE PROGRAM [ARGUMENT ...]

Started first, it asks the kernel to tell it when tritonscope (pid PARENT) dies (PR_SET_PDEATHSIG,
whatever killed tritonscope, SIGKILL too) and to make it the parent of every orphan the program
leaves (PR_SET_CHILD_SUBREAPER), then starts the program. Told to stop (SIGTERM, SIGHUP) or
orphaned, it stops the program and all it started, found through /proc whatever their process
group (SIGTERM, then SIGKILL after GRACE seconds); so is what the program left running when it
ends. It ends as the program ended (its exit code, or the same signal). SIGINT is the program's
own (the terminal's Ctrl-C).

Standard library only, and nothing imported that it does not use at run time: it must start fast
(every program tritonscope runs waits for it) and never imports tritonscope. Run as a file, its own
folder is first on its path: no module beside it may bear a standard module's name (a test says so).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time

TYPE_CHECKING = False  # typing is not imported at run time (start-up); mypy reads the block below
if TYPE_CHECKING:
    from collections.abc import Iterable
    from types import FrameType
    from typing import NoReturn

ASKED = (signal.SIGTERM, signal.SIGHUP)  # what stops the program (and what the parent's death sends)
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36
_CANNOT_RUN = 127  # the program could not be started, as a shell says it


class Stop(Exception):  # noqa: N818 - a request, not an error
    """Raised in the supervisor's wait when it is told to stop (SIGTERM, SIGHUP)."""


def _stop(signum: int, frame: FrameType | None) -> None:
    raise Stop


def main(argv: list[str]) -> NoReturn:
    parent, grace, program = int(argv[0]), float(argv[1]), argv[2:]
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, ASKED)  # held until the handlers are in place
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1)
    except (AttributeError, OSError):  # not Linux: the parent stops it itself
        pass
    if os.getppid() != parent:  # the parent died before the kernel was asked to say so
        os._exit(1)
    child = _start(program, mask)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in ASKED:
        signal.signal(sig, _stop)
    status = None
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        while status is None:
            pid, code = os.waitpid(-1, 0)
            status = code if pid == child else None
    except Stop:
        pass
    # Told to stop, or the program ended: what it started and left running (a forked child that
    # outlives it, orphaned to this subreaper) ends too, so that none outlives tritonscope.
    status = _end(child, status, grace)
    _exit_as(status)


def _start(program: list[str], mask: Iterable[int]) -> int:
    """The program, forked and run with the caller's signal mask; its pid."""
    child = os.fork()
    if child == 0:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        try:
            os.execvp(program[0], program)
        except OSError as exc:
            sys.stderr.write(f"cannot run {program[0]}: {exc.strerror}\n")
            os._exit(_CANNOT_RUN)
    return child


def _descendants() -> set[int]:
    """Every process below this one, read from /proc (orphans of the program are its children too)."""
    children: dict[int, list[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                ppid = int(stat.read().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found: set[int] = set()
    todo = [os.getpid()]
    while todo:
        for pid in children.get(todo.pop(), []):
            if pid not in found:
                found.add(pid)
                todo.append(pid)
    return found


def _reap(child: int, status: int | None) -> int | None:
    """Collects every ended child; the program's wait status once it has ended (else `status`)."""
    while True:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status
        if pid == 0:
            return status
        if pid == child:
            status = code


def _end(child: int, status: int | None, grace: float) -> int | None:
    """Stops the program and everything it started: SIGTERM once to each, SIGKILL to those still
    there after `grace` seconds; the program's wait status (None if it could not be collected)."""
    for sig in ASKED:
        signal.signal(sig, signal.SIG_IGN)
    told: set[int] = set()
    started = time.monotonic()
    while time.monotonic() - started < grace + 5:
        status = _reap(child, status)
        alive = _descendants()
        if not alive:
            break
        late = time.monotonic() - started > grace
        # The program first: a signal to it takes effect as it is sent, so that it cannot see a
        # child of its own die first and end as if it had not been stopped (a shell's `wait` then
        # ends with 0).
        for pid in sorted(alive if late else alive - told, key=lambda pid: pid != child):
            try:
                os.kill(pid, signal.SIGKILL if late else signal.SIGTERM)
            except OSError:
                pass
        told |= alive
        time.sleep(0.05)
    return status


def _exit_as(status: int | None) -> NoReturn:
    """Ends as the program ended: its exit code, or killed by its signal (no core file of our own)."""
    if status is None or not os.WIFSIGNALED(status):
        os._exit(os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else 128 + signal.SIGTERM)
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sig = os.WTERMSIG(status)
    if sig != signal.SIGKILL:
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)


if __name__ == "__main__":
    main(sys.argv[1:])
