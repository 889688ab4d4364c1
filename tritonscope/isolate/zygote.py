"""Workers forked from one process that has imported Triton already (a fork server), so that a pool's
workers share one start-up: its second worker costs a fork, not 1 s of Python and Triton imports, and
a worker killed on a cancel is replaced at once. Only for this environment's workers; another Triton
release's run fresh interpreters (local._Worker).

The parent's side is `Zygote` (one per pool) and the `Forked` process handles it gives; the server's
side is `serve_forks`, run by `python -m tritonscope.isolate` when ZYGOTE is set. A request is one
message on a Unix socket carrying the child's descriptors (its task pipe, its status pipe, and those
its environment names); the server forks, and the child becomes a worker (worker.serve) in a process
group of its own. On the status pipe the server writes the child's id once forked, then its exit
status once reaped: a Forked is waited on, polled and killed as a Popen is.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from typing import IO

from .worker import PARENT, PRELOAD, _die_with_parent, _preload, serve

ZYGOTE = "TRITONSCOPE_ZYGOTE"  # set: `python -m tritonscope.isolate` serves forks on this descriptor
_PID = struct.Struct("<q")  # the child's id, written once it is forked
_STATUS = struct.Struct("<i")  # its exit code as Popen says it (negative: the signal), once reaped
_MAX_FDS = 8
# Where a fork server can run: Unix sockets that keep message bounds and carry descriptors (Linux;
# macOS has no SOCK_SEQPACKET). Elsewhere every worker is a fresh interpreter.
FORKS = hasattr(socket, "SOCK_SEQPACKET") and hasattr(socket, "send_fds") and hasattr(os, "fork")


class Zygote:
    """The parent's side: a fork server started now (it imports `preload` first), and `fork` for each
    worker. It ends when closed or when the parent dies, and the workers it forked end with it."""

    def __init__(self, env: dict[str, str], stdout, stderr, preload: str | None):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {**env, ZYGOTE: str(theirs.fileno()), PARENT: str(os.getpid())}
        if preload:  # its module only: a warm-up function runs in each worker (a fork after a compile's
            # threads started would be unsafe)
            env[PRELOAD] = preload.partition(":")[0]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tritonscope.isolate"],
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            env=env,
            pass_fds=(theirs.fileno(),),
            start_new_session=True,
        )
        theirs.close()
        self._socket = ours
        self._lock = threading.Lock()  # one request at a time on the socket, from any thread

    def fork(self, env: dict[str, str], fds: dict[str, int]) -> Forked:
        """A worker forked with `env` added to the server's, whose task pipe the Forked's `stdin` feeds;
        `fds`: environment name -> a descriptor of this process the worker gets (its number there is
        the variable's value). The parent keeps its own copies of those descriptors."""
        task_read, task_write = os.pipe()
        status_read, status_write = os.pipe()
        names = ["", "", *fds]
        message = pickle.dumps((names, env))
        try:
            with self._lock:
                socket.send_fds(self._socket, [message], [task_read, status_write, *fds.values()])
        except OSError:  # the server is gone: its status pipe ends at once, read as a worker never forked
            pass
        finally:  # the server holds its own copies of what it was sent
            os.close(task_read)
            os.close(status_write)
        return Forked(os.fdopen(task_write, "wb"), status_read)

    def close(self) -> None:
        """Ends the server (the workers it forked die with it) and reaps it."""
        with contextlib.suppress(OSError):
            self._socket.close()
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


class Forked:
    """A worker forked by a Zygote, with Popen's `stdin`, `pid`, `poll`, `wait`, `kill`, `send_signal`.
    Its id is known once the server has forked it (`started`): a server still importing has not yet."""

    def __init__(self, stdin: IO[bytes], status: int):
        self.stdin = stdin
        self.returncode: int | None = None
        self._status = status
        self._pid: int | None = None
        self._lock = threading.Lock()

    def started(self) -> int | None:
        """The worker's id if it has been forked (or 0: it never will be), without waiting."""
        with self._lock:
            if self._pid is None and readable(self._status, 0):
                self._pid = self._read(_PID) or 0
            return self._pid

    @property
    def pid(self) -> int:
        """The worker's id, waiting for the fork (0 where the server is gone and it never came)."""
        with self._lock:
            if self._pid is None:
                self._pid = self._read(_PID) or 0
            return self._pid

    def poll(self) -> int | None:
        if self.returncode is None and self.started() is not None and readable(self._status, 0):
            self.wait()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Its exit code once it has ended (subprocess.TimeoutExpired past `timeout` seconds)."""
        if timeout is not None and self.returncode is None:
            deadline = time.monotonic() + timeout
            for _ in range(2):  # the fork's id, then the exit status
                if self.started() is not None and self.poll() is not None:
                    break
                if not readable(self._status, max(deadline - time.monotonic(), 0)):
                    raise subprocess.TimeoutExpired("tritonscope worker", timeout)
        pid = self.pid
        with self._lock:
            if self.returncode is None:
                code = self._read(_STATUS) if pid else None
                self.returncode = -signal.SIGKILL if code is None else code  # the server died: so did it
                os.close(self._status)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None and self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)

    def kill(self) -> None:
        """Kills it; one not forked yet (its server still importing) is not waited for: given up here,
        it reads the end of its task pipe (closed by its owner) as soon as it is forked, and ends."""
        with self._lock:
            unforked = self._pid is None and not readable(self._status, 0)
            if unforked and self.returncode is None:
                self.returncode = -signal.SIGKILL
                self._pid = 0
                os.close(self._status)
        if not unforked:
            self.send_signal(signal.SIGKILL)

    def _read(self, layout: struct.Struct) -> int | None:
        """One value from the status pipe, waiting for it; None at its end (the server is gone)."""
        data = b""
        while len(data) < layout.size:
            try:
                chunk = os.read(self._status, layout.size - len(data))
            except OSError:
                return None
            if not chunk:
                return None
            data += chunk
        return layout.unpack(data)[0]


def readable(fd: int, wait: float) -> bool:
    """Whether the pipe has something to read (an answer, or its end), waiting up to `wait` seconds;
    False where it was closed meanwhile (by a kill or a cancel in another thread)."""
    try:
        return bool(select.select([fd], [], [], wait)[0])
    except (OSError, ValueError):
        return False


def serve_forks(fd: int) -> None:
    """The server: forks a worker for each request on the socket, and writes each worker's id and,
    once reaped, its exit status to that worker's status pipe; ends when the socket does (the parent
    closed it, or died)."""
    server = socket.socket(fileno=fd)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)  # a child's end wakes the select below
    signal.signal(signal.SIGCHLD, lambda *_: None)
    statuses: dict[int, int] = {}  # child id -> its status pipe
    own = {fd, wake_read, wake_write}
    server_pid = os.getpid()
    while True:
        readable, _, _ = select.select([fd, wake_read], [], [])
        if wake_read in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(wake_read, 4096)
        _reap(statuses)
        if fd not in readable:
            continue
        try:
            message, fds, _, _ = socket.recv_fds(server, 1 << 16, _MAX_FDS)
        except OSError:
            message, fds = b"", []
        if not message:  # the parent closed its end: the workers die with this process
            return
        names, env = pickle.loads(message)
        pid = os.fork()
        if pid == 0:
            _become_worker(fds, names, env, own | set(statuses.values()), server_pid)
        statuses[pid] = fds[1]
        with contextlib.suppress(OSError):
            os.write(fds[1], _PID.pack(pid))
        for received in (fds[0], *fds[2:]):
            os.close(received)


def _reap(statuses: dict[int, int]) -> None:
    while statuses:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        pipe = statuses.pop(pid, None)
        if pipe is not None:
            with contextlib.suppress(OSError):
                os.write(pipe, _STATUS.pack(os.waitstatus_to_exitcode(status)))
            os.close(pipe)


def _become_worker(fds: list[int], names: list[str], env: dict[str, str], theirs: set[int], server_pid: int) -> None:
    """In the forked child: a process group of its own, none of the server's descriptors, the task
    pipe as stdin, the environment asked for; then a worker until its tasks end. Never returns."""
    code = 1
    try:
        os.environ[PARENT] = str(server_pid)
        _die_with_parent()  # first: a server killed from here on takes this worker with it (it pops PARENT)
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in theirs | {fds[1]}:
            with contextlib.suppress(OSError):
                os.close(fd)
        os.dup2(fds[0], 0)
        os.close(fds[0])
        os.environ.update(env)
        os.environ.update({name: str(fd) for name, fd in zip(names, fds, strict=True) if name})
        os.environ[PARENT] = str(server_pid)  # for serve(), which asks again
        serve()
        code = 0
    finally:
        os._exit(code)


def main() -> None:
    """`python -m tritonscope.isolate` with ZYGOTE set: the server, dying with its parent, deaf to the
    terminal's Ctrl-C, its preload imported before the first fork."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    fd = int(os.environ.pop(ZYGOTE))
    preload = os.environ.pop(PRELOAD, None)
    if preload:
        _preload(preload)
    serve_forks(fd)
