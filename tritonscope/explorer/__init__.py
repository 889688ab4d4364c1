"""The explorer (`tritonscope explore`): a full-screen terminal front end, beside cli/.

It draws the results of app/explore.py's tasks, which run in a child process through the executor
(compiles.py): this process never imports Triton or torch. The app (app.py) takes them in; what
each task is for is tickets.py's, the variants seen session.py's (both Textual-free). The main
screen (main.py) holds the code area (code_area.py: the panes of panes.py, drawn with render/'s
lexers and colours) and the widgets of widgets.py, each with its own state; the other screens are
screens.py, what each part shows contents.py and words.py, the look explorer.tcss.

    opening = start(request)   # the child starts compiling now, before Textual's own start-up
    first = opening.first()    # raises what the command line says of a file that is not a kernel
    code = run(opening, first) # the screen, until q, Ctrl-C or SIGTERM; the terminal as it was after
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any

from ..core.model import VariantRequest
from ..core.status import ExitStatus
from ..isolate import Outcome
from .compiles import Compiles


class Opening:
    """The first compile, started before the screen: what it gives decides whether the screen opens."""

    def __init__(self, request: VariantRequest, compiles: Compiles | None = None):
        self.request = request
        self._done = threading.Event()
        self._outcome: Outcome | None = None
        self.compiles = compiles or Compiles()
        # a screen before this one is gone: its callbacks would wait on its loop for ever
        self.compiles.on_step, self.compiles.on_done = None, self._arrived
        self.compiles.on_early = None  # the first screen waits for the whole variant
        self.compiles.submit(request)

    def _arrived(self, ticket: int, outcome: Outcome) -> None:
        self._outcome = outcome
        self._done.set()

    def first(self) -> Any:
        """The first compile's value (a variant, a failure to show, a list of kernels); a file that
        is not a kernel, or a flag that does not apply, raises its error here, before any screen."""
        try:
            while not self._done.wait(0.1):
                pass
        except BaseException:
            self.compiles.close()
            raise
        assert self._outcome is not None
        try:
            return self._outcome.unwrap()
        except BaseException:
            self.compiles.close()
            raise


def start(request: VariantRequest, compiles: Compiles | None = None) -> Opening:
    """The first compile of `request` started, in `compiles`' warm workers if given (another kernel
    opened by the same front end), else in new ones."""
    return Opening(request, compiles)


def run(opening: Opening, first: Any, watch: bool = True) -> int:
    """The screen until the user quits (or Ctrl-C, SIGTERM, SIGHUP end it); its exit code."""
    from .app import ExplorerApp

    kept = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGHUP)}
    app = ExplorerApp(opening.compiles, opening.request, first, watch)
    try:
        app.run()
    finally:
        opening.compiles.close()
        app.stop_watching()
        for signum, handler in kept.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(signum, handler)
    if app.return_code and not app.exit_code:  # textual printed an exception that ended the app: a bug of ours
        return int(ExitStatus.BUG)
    return app.exit_code
