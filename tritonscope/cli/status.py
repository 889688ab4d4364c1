"""The status line: no silent waits on a terminal.

While a command works, a thread looks every half second at what runs (core/progress.py). Once a
step has run for two seconds, one line on stderr says what it is (importing FILE, compiling KERNEL
for TARGET, stage N of M), for how long, where the user's code is (file and line) when it is theirs,
and that Ctrl-C stops it. The line is redrawn in place and cleared when the work ends or a message
is printed. Only where stderr is a terminal: piped or redirected output never holds it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import threading
import time

from ..core import progress

DELAY = 2.0  # seconds of work before the line shows
TICK = 0.5  # seconds between redraws
ASK_WHERE = 3.0  # seconds between asks of where the work is (a worker is asked with a signal)


class StatusLine:
    def __init__(self, descriptor: int = 2):
        self.descriptor = descriptor
        self.lock = threading.Lock()  # held while the line is drawn or a message printed
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = False
        self._paused = 0
        self._where: tuple[float, str | None] = (0.0, None)  # (asked at, answer)

    def start(self) -> StatusLine:
        if _is_terminal(self.descriptor):
            self._thread = threading.Thread(target=self._run, name="tritonscope-status", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with self.lock:
            self._clear()

    @contextlib.contextmanager
    def paused(self):
        """No line while the block prints (a message, a download bar of its own)."""
        with self.lock:
            self._clear()
            self._paused += 1
        try:
            yield
        finally:
            with self.lock:
                self._paused -= 1

    def _run(self) -> None:
        while not self._stop.wait(TICK):
            now = progress.now()
            text = self.line(now) if now is not None and now.seconds >= DELAY else None
            with self.lock:
                if self._stop.is_set() or self._paused:
                    continue
                if text is None:
                    self._clear()
                else:
                    self._write(f"\r{text}\x1b[K")
                    self._shown = True

    def line(self, now: progress.Now) -> str:
        """`importing kernels.py · 12 s · at kernels.py:14 · Ctrl-C stops it`, within the terminal's
        width: what runs is cut first, so the time, the place and Ctrl-C always show."""
        what = _short(now.text) + (f", {now.detail}" if now.detail else "")
        where = self._ask_where(now)
        tail = f" · {now.seconds:.0f} s" + (f" · at {_short(where)}" if where else "") + " · Ctrl-C stops it"
        room = max(shutil.get_terminal_size((80, 24)).columns - 1 - len(tail), 10)
        return (what if len(what) <= room else what[: room - 1] + "…") + tail

    def _ask_where(self, now: progress.Now) -> str | None:
        asked, answer = self._where
        if now.where is not None and time.monotonic() - asked >= ASK_WHERE:
            try:
                answer = now.where()
            except Exception:  # noqa: BLE001 - a worker ending as it is asked: no answer this time
                answer = None
            self._where = (time.monotonic(), answer)
        return answer if now.where is not None else None

    def _clear(self) -> None:
        if self._shown:
            self._write("\r\x1b[K")
            self._shown = False

    def _write(self, text: str) -> None:
        with contextlib.suppress(OSError):
            os.write(self.descriptor, text.encode(errors="replace"))


def _short(text: str) -> str:
    """Paths as their file names: the line must fit, and the user knows where their file is."""
    return re.sub(r"(?:/[^\s/:]+)+/([^\s/:]+)", r"\1", text)


def _is_terminal(descriptor: int) -> bool:
    try:
        return os.isatty(descriptor)
    except OSError:
        return False


_current: list[StatusLine] = []  # the line of the command running, if any


@contextlib.contextmanager
def shown():
    """The status line for the duration of a command (on a terminal)."""
    line = StatusLine().start()
    _current.append(line)
    try:
        yield line
    finally:
        _current.remove(line)
        line.stop()


@contextlib.contextmanager
def paused():
    """No status line while the block prints: `say`'s messages, a progress bar of its own."""
    if not _current:
        yield
        return
    with _current[-1].paused():
        yield
