"""Where the program asked for a value: its own line, past the libraries it called into (an installed
package's, the simulated GPU's own), a compiled function's call rather than its `def`, the main
thread's line for a backward pass torch runs on its autograd thread."""

from __future__ import annotations

import linecache
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep  # the simulated GPU's own modules


_STAND_INS_SAID: set[str] = set()  # the kinds of stand-in figure said already


def say_stand_in_once(kind: str, text: str) -> None:
    """TEXT on stderr the first time a stand-in figure of KIND is read (an allocator's 0, an event's
    1.0 ms), so that a program's printed figure is not read as measured (h19b)."""
    if kind not in _STAND_INS_SAID:
        _STAND_INS_SAID.add(kind)
        sys.stderr.write(f"tritonscope: {text}\n")


def installed(name: str) -> bool:
    return f"{os.sep}site-packages{os.sep}" in name or f"{os.sep}dist-packages{os.sep}" in name


def _callers_past_libraries(frame):
    """FRAME or its innermost caller that is neither an installed library's nor the simulated GPU's."""
    while frame is not None and (installed(frame.f_code.co_filename) or frame.f_code.co_filename.startswith(_HERE)):
        frame = frame.f_back
    return frame


def _main_threads_frame():
    """The main thread's innermost frame, seen from another thread (torch's autograd worker runs a
    CUDA backward there, called by no frame of the program's); None on the main thread."""
    import threading

    if threading.current_thread() is threading.main_thread():
        return None
    return sys._current_frames().get(threading.main_thread().ident)  # type: ignore[arg-type]


def _called_from(frame):
    """A torch.compile'd function's frame, seen at its `def` (or decorator) line while its graph runs:
    the program's line that called it, which says where the value was read."""
    while frame is not None and _at_its_definition(frame):
        caller = _callers_past_libraries(frame.f_back)
        if caller is None:
            break
        frame = caller
    return frame


def _at_its_definition(frame) -> bool:
    """Whether a frame stands at its function's `def` or decorator line, where no statement runs (a
    generator expression's or a lambda's one line runs: those are where they ask)."""
    if frame.f_lineno != frame.f_code.co_firstlineno:
        return False
    text = linecache.getline(frame.f_code.co_filename, frame.f_lineno).lstrip()
    return text.startswith(("@", "def ", "async def "))


def located(frame, asked: str) -> tuple[str, str]:
    """(FILE:LINE of the program's own code, what was asked): where a library the program calls
    (timm, transformers, installed packages) asked, the program's line that called into it, and
    the library's line after what was asked."""
    if frame is None:
        return "the program", asked
    frame = _called_from(frame)
    user = _callers_past_libraries(frame)
    if user is None:  # a backward pass on torch's autograd thread: the program's line that started it
        user = _callers_past_libraries(_main_threads_frame())
    if user is None or user is frame:
        return f"{frame.f_code.co_filename}:{frame.f_lineno}", asked
    return f"{user.f_code.co_filename}:{user.f_lineno}", f"{asked} (in {frame.f_code.co_filename}:{frame.f_lineno})"
