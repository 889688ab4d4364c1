"""The Python API's session: one warm worker for this process (isolate/session.py, as the agent server
keeps one), which compiles every request, and the values it answered kept by task, so that asking
again answers at once. Its worker starts on the first call and ends with this process; a compile
that crashes or hangs ends the worker, never the notebook's kernel.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Iterable
from typing import Any

from ..app import calls
from ..core import kernel_import, targets
from ..core.errors import UsageError
from ..isolate import Session, Task

_lock = threading.Lock()
_session: Session | None = None


def session() -> Session:
    """This process's session, its worker started (and importing Triton) on first use; refused while
    tritonscope imports a kernel file whose top-level code calls the API (app/walk/load.py)."""
    global _session
    kernel_import.refuse_compiles("tritonscope's Python API")
    with _lock:
        if _session is None:
            _session = Session(preload=calls.COMPILE_MODULE).warm()
            atexit.register(_session.close)
            # `target="auto"` (the default) asks the GPU driver which GPU is here, 0.1 to 0.3 s on a
            # GPU machine: asked now, while the worker imports Triton, not in the user's first call.
            threading.Thread(target=targets.local_target, daemon=True).start()
        return _session


def answer(task: Task, timeout: float, inputs: Iterable[str] = (), keep: bool = True) -> Any:
    """The task's value: kept, or computed now in the worker; its error raised here. Ctrl-C (the
    notebook's interrupt) ends the worker's task and the call."""
    if not timeout > 0:  # every function's `timeout`: -1 was taken, and ended the call at once
        raise UsageError(f"timeout={timeout!r}: a time limit is a number of seconds over 0")
    call = session().call(task, timeout, inputs, keep)
    try:
        return call.result()
    except KeyboardInterrupt:
        call.cancel()
        raise


def start_early() -> None:
    """The worker started now, as the API is imported, so that it imports Triton while the rest of the
    API is imported here; not where a kernel file being read imports the API (its calls are refused)."""
    if not kernel_import.importing_kernel_file():
        session()
