"""The explorer's app: the Python source and one to three stage panes linked by the selected Python
line, the resource panel and explain's findings, a status line (main.py draws them); variants by
keystroke, compiled in the child (compiles.py) while the screen stays live, and recompiled on every
save. The app takes the child's results in, in its own loop, and tells the screen what to draw;
which task is for what, and which comes next, is tickets.py's."""

from __future__ import annotations

import asyncio
import gc
import re
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from textual import events, on
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen

from ..core.model import KernelSpec, VariantRequest
from ..core.quantities import count
from ..core.source import local_file
from ..core.targets import TARGETS
from ..core.watching import saves
from ..isolate import Outcome
from ..results.catalog import KernelList
from ..results.explore import CompileFailure, ExploreResult
from ..results.passes import PassesResult
from . import contents, tickets
from .collector import QUIET, Collector
from .compiles import Compiles
from .main import MainScreen
from .panes import CodePane
from .screens import HelpScreen, KernelListScreen, PassesScreen, VariantScreen
from .session import Session, asked_knobs, knobs
from .tickets import Tickets
from .words import change, describe

PARTIAL_WAIT = 0.03  # seconds a compile's stages so far wait for its next stage before being drawn
SWITCH_INTERVAL = 0.001  # seconds a thread holds the interpreter before another waiting gets it (on_mount)
ANSWERED = (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)  # not each mouse move


class _Handed(Message):
    """A thread's call for the app's loop (`ExplorerApp._from_thread`)."""

    def __init__(self, method: Callable[..., None], args: tuple):
        super().__init__()
        self.method, self.args = method, args


class _Saves:
    """The saves of the kernel's file and of the user's own files it imports (its helpers), followed
    in a thread: `saved` called at each."""

    def __init__(self, saved: Callable[[], None]):
        self.saved = saved
        self._stop = threading.Event()
        self._files: tuple[Path, ...] = ()

    def follow(self, file: str, helpers: tuple[str, ...] | None = None) -> None:
        """Follows FILE's saves and its HELPERS' (None: those followed so far, for the same file);
        called again after each compile, it takes in an import the last save added."""
        kept = self._files[1:] if self._files[:1] == (Path(file).resolve(),) else ()
        files = (Path(file).resolve(), *(kept if helpers is None else (Path(h) for h in helpers)))
        if files != self._files:
            self.stop()
            self._stop, self._files = threading.Event(), files
            threading.Thread(target=self._follow, args=(files, self._stop), daemon=True).start()

    def _follow(self, files: tuple[Path, ...], stop: threading.Event) -> None:
        for _ in saves(files, stop):
            self.saved()

    def stop(self) -> None:
        self._stop.set()
        self._files = ()


class ExplorerApp(App):
    TITLE = "tritonscope explore"
    CSS_PATH = "explorer.tcss"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [  # on every screen; the main screen's keys are its own (main.py)
        Binding("ctrl+c", "interrupt", "quit", show=False, priority=True),
        Binding("q", "quit", "quit", show=False),
        Binding("question_mark", "help", "keys", show=False),
    ]

    def __init__(self, compiles: Compiles, request: VariantRequest, first: Any, watch: bool = True):
        super().__init__()
        self.compiles, self.first, self.follow_saves = compiles, first, watch
        self.session = Session(request)
        self.tickets = Tickets()
        self.exit_code = 0
        self.leaving = False
        self._saves = _Saves(lambda: self._from_thread(self.recompile))
        self._listing: KernelList | None = None  # the file's kernels, where the user chose one
        self._asked_of: KernelSpec | None = None  # the kernel a compile missed values of (one file's one)
        self.collector = Collector()  # Python's full garbage collections, between keys
        compiles.on_step = lambda ticket, step: self._from_thread(self.tickets.told, ticket, step)
        compiles.on_done = lambda ticket, outcome: self._from_thread(self._done, ticket, outcome)
        compiles.on_early = self._early_from_thread

    def get_default_screen(self) -> Screen:
        return MainScreen(self.session)

    @property
    def main(self) -> MainScreen:
        return cast(MainScreen, self.default_screen)

    def on_mount(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGHUP):  # the screen ends as after q: the terminal as it was
            loop.add_signal_handler(signum, self._terminated, signum)
        self.collector.start()
        # The compile's reader (a thread) takes the interpreter back within a millisecond while the
        # screen is drawn: at Python's default 5 ms, each of its looks waited that long, and it fell
        # 50-120 ms behind a stage named (the H100 machine's CPU). This process only draws.
        sys.setswitchinterval(SWITCH_INTERVAL)

    @on(MainScreen.Ready)
    def _opened(self) -> None:
        self._take(self.first, self.session.key(self.session.request), "opened")
        self.set_interval(0.2, self._tick)
        self.set_interval(QUIET, self._collect_when_quiet)
        self.compiles.spare()

    def on_unmount(self) -> None:
        self.collector.stop()

    def _collect_when_quiet(self) -> None:
        """A full collection in a pause of the input, but not while a variant compiles: its stages
        are drawn as they come, and a collection would hold them back."""
        if not self.compiling:
            self.collector.tick()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, ANSWERED):
            self.collector.input()
            self.main.heard()
        await super().on_event(event)

    def on_key(self, event: events.Key) -> None:
        """Keys typed just after `/` or `:` go to the prompt: they reach the app after the key that opened
        it (the screen sees them before, on their way from a pane that had the focus)."""
        self.main.prompt.typed(event)

    @on(CodePane.Moved)
    def _moved(self) -> None:
        self.call_after_refresh(self.collector.answered)  # once the panes' new rows are on screen

    def exit(self, *args, **kwargs) -> None:
        """Quits (q, Ctrl-C, SIGTERM): what a thread hands over after this is dropped (`_from_thread`)."""
        self.leaving = True
        super().exit(*args, **kwargs)

    def _from_thread(self, method: Callable[..., None], *args) -> None:
        """Runs `method(*args)` in the app's loop for a thread (a compile's, the diff's, the save
        watcher's), in the order asked, unless the app is quitting by then: the screen it would draw
        on is being taken down. The thread does not wait: a compile's reader goes on reading its next
        stages while the app draws the last."""
        self.post_message(_Handed(method, args))

    @on(_Handed)
    def _handed(self, message: _Handed) -> None:
        if not self.leaving and self.main.is_attached:  # not while the app is taken down
            message.method(*message.args)

    def _terminated(self, signum: int) -> None:
        self.exit_code = 128 + signum
        self.exit()

    def _watch(self, file: str | None, helpers: tuple[str, ...] | None = None) -> None:
        """Recompiles on every save of `file` (the kernel's) and of the files it imports, from now on."""
        if self.follow_saves and file is not None:
            self._saves.follow(file, helpers)

    def stop_watching(self) -> None:
        self._saves.stop()

    @property
    def compiling(self) -> bool:
        """Whether a compile (or a pass-pipeline capture) is in flight, or a variant's follow-up is due
        once it is painted (`_after_show`)."""
        return self.tickets.compiling

    # --- results in -------------------------------------------------------------------------------

    def _take(self, value: Any, key, how: str) -> None:
        """A compile's value on screen: a variant, a failure, or a list of kernels to choose from."""
        if isinstance(value, ExploreResult):
            self._show(value, key, how)
            self._watch(value.compilation.kernel.file, value.helpers)
        elif isinstance(value, CompileFailure):
            self._asked_of = value.kernel or self._asked_of  # the kernel whose values the variant screen asks
            self._failed(value.message + (f" ({value.hint})" if value.hint else ""), value.where)
            self._watch(getattr(value.request.source, "path", None))
        else:
            self._listing = value if isinstance(value, KernelList) else None
            self.push_screen(KernelListScreen(value, self.session.request), self._chosen)

    def _early_from_thread(self, ticket: int, result: ExploreResult) -> None:
        self.tickets.arrived(ticket, result)  # the newest: one the app has not drawn yet is passed over
        self._from_thread(self._early, ticket)

    def _early(self, ticket: int) -> None:
        """The stages the variant compiling has so far (Triton makes the next, or ptxas the binary):
        shown, not kept. Those that are not yet all the stages before the binary wait PARTIAL_WAIT
        for the next, and are drawn with it where it comes by then: drawing them would hold the
        screen while it comes (PTX follows LLVM IR in 20 ms on a small kernel; drawing a pane takes
        as long)."""
        result = self.tickets.newest(ticket)
        if result is not None and result.partial:
            self.set_timer(PARTIAL_WAIT, lambda: self._early_now(ticket, result))
        elif result is not None:
            self._early_now(ticket, result)

    def _early_now(self, ticket: int, result: ExploreResult) -> None:
        asked = self.tickets.take(ticket, result)
        if asked is not None:  # a pane whose stage is the same as before is not drawn again
            self._show(result, asked.key, "Triton's stages so far" if result.partial else "Triton's stages; ptxas runs")

    def _show(self, result: ExploreResult, key, how: str) -> None:
        """Shows a variant (`how` it came: compiled, from memory), and marks what changed in a thread."""
        session = self.session
        self.main.stand(f"{how}: {describe(result)}")
        session.how = how
        kernel_changed = session.shown is None or session.kernel_file != result.compilation.kernel.file
        session.show(result) if result.early else session.arrived(key, result)
        jump = session.line is None or kernel_changed
        if jump:
            session.line = result.compilation.kernel.line
        self.main.show(result, jump)
        self.tickets.due = result
        self.call_after_refresh(self._after_show, result)
        # What is on screen now lives on: frozen out of the full collections (collector.py runs one
        # after each move), each of which would otherwise walk every listing and its lexed rows
        # (100-150 ms on fused attention). The cost: a reference cycle frozen here (a screen closed
        # later) is not collected; they are few.
        gc.freeze()

    def _after_show(self, result: ExploreResult) -> None:
        """Once the stages are painted: the diff against the variant before (a thread, which would
        take the interpreter in turns with the painting) and the next task (its result pickled to the
        worker here) start; for the variant still on screen only (a newer one has its own)."""
        if self.tickets.due is result:
            self.tickets.due = None
        if self.session.shown is result and not self.leaving and not result.partial:  # more stages come
            self.run_worker(self._mark_changes, thread=True, exclusive=True, group="changes")
            if not result.early:  # its compile still runs: a follow-up now would cancel it
                self._follow_up()

    def _follow_up(self) -> None:
        """The SASS, then the registers live per line, of the variant on screen or the one before."""
        next_task = tickets.follow_up(self.session)
        if next_task is not None:
            kind, result = next_task
            start = self.compiles.machine_code if kind == tickets.MACHINE else self.compiles.live_registers
            self.tickets.start(start(result), kind, self.session.key_of(result))

    def _completed(self, key, outcome: Outcome) -> None:
        """A variant completed (its SASS, its live registers): kept, shown if on screen, and followed up."""
        if not outcome.ok or not isinstance(outcome.value, ExploreResult):
            if not outcome.cancelled and outcome.error:
                self.main.stand(f"the SASS could not be read: {outcome.error}")
            return
        which = self.session.completed(key, outcome.value)
        if which is None:
            return
        if which == "shown":
            self.main.redraw()
            self.main.stand(f"{self.session.how}: {describe(outcome.value)}")  # no longer "reading the SASS"
        self.run_worker(self._mark_changes, thread=True, exclusive=True, group="changes")
        self._follow_up()
        gc.freeze()  # as after _show

    def _failed(self, message: str, where: tuple[str, int] | None = None) -> None:
        session = self.session
        was = session.shown
        session.failed(CompileFailure(session.request, message, where=where))
        if session.shown is not was:  # ptxas failed: the last good stages back
            self.main.redraw()
        path = local_file(session.request.source)
        now = contents.file_since(path, session.shown)  # else the source pane stays, greyed
        file = str(path) if now is not None else session.kernel_file
        self.main.failed(_in_keys(message), _error_line(message, where, file, now, session.request.kernel), now)

    def _mark_changes(self) -> None:
        changes = self.session.changes()  # in a thread: a diff of every stage
        self._from_thread(self._marked, self.session.shown, changes)

    def _marked(self, shown: ExploreResult, changes: dict) -> None:
        previous = self.session.previous
        if shown is not self.session.shown or previous is None:
            return
        self.main.mark(shown, changes)
        if previous is shown:  # the file saved back as it was before a failed compile
            return self.main.stand(f"{self.session.how} · as before the failed compile: no line changed")
        changed = count(sum(len(lines) for lines in changes.values()), "line")
        said = change(shown, previous) or "against the file before the save"  # else the same variant
        self.main.stand(f"{self.session.how} · {changed} changed (▌) · {said}")

    def _done(self, ticket: int, outcome: Outcome) -> None:
        asked = self.tickets.end(ticket)
        if asked is None:
            return
        if asked.kind == tickets.PIPELINE:
            self._passes_ready(outcome)
        elif asked.kind in (tickets.MACHINE, tickets.LIVE):
            self._completed(asked.key, outcome)
        elif outcome.ok:
            self._take(outcome.value, asked.key, f"compiled in {self.tickets.seconds(asked):.1f} s")
        else:
            self._failed(outcome.error or "the compile failed")

    def _tick(self) -> None:
        said = self.tickets.progress(self.session) if not self.leaving else None
        if said is not None:
            self.main.stand(said)

    # --- variants ---------------------------------------------------------------------------------

    def ask(self, request: VariantRequest) -> None:
        """Shows `request`: from memory at once when compiled before, else compiled in the background."""
        self.session.request = request
        remembered = self.session.remembered(request)
        if remembered is not None:
            self.compiles.cancel()
            self.tickets.cancel()
            self._show(remembered, self.session.key(request), "from memory")
            return
        self.tickets.start(self.compiles.submit(request), tickets.VARIANT, self.session.key(request))
        self._tick()

    def recompile(self) -> None:
        """The kernel file was saved: the variant on screen compiled again."""
        self.ask(self.session.request)

    def action_variant(self) -> None:
        shown, request, names = self.session.shown, self.session.request, _stepped_targets()
        if shown is not None:
            self.push_screen(VariantScreen(self, knobs(shown, names), request))
        elif self.session.failure is not None:  # nothing compiled yet: the values asked for, to mend
            listed = self._listing.kernels if self._listing is not None else ()  # else: a file of one kernel
            spec = next((k for k in listed if k.name == request.kernel), self._asked_of)
            self.push_screen(VariantScreen(self, asked_knobs(request, spec, names), request))

    def action_previous_variant(self) -> None:
        if self.session.previous is not None:
            self.ask(self.session.previous.request)

    def _chosen(self, request: VariantRequest | None) -> None:
        if request is None:
            if self.session.shown is None:
                self.exit()
            return
        self.ask(request)

    def action_passes(self) -> None:
        if self.session.shown is not None:
            self.tickets.start(self.compiles.pipeline(self.session.request), tickets.PIPELINE)

    def _passes_ready(self, outcome: Outcome) -> None:
        if self.session.shown is not None:  # the status on it again, its follow-up (the capture cancelled it)
            self.main.stand(f"{self.session.how}: {describe(self.session.shown)}")
            self._follow_up()
        if not outcome.ok or not isinstance(outcome.value, PassesResult):
            self.main.say(f"the pass pipeline could not be captured: {outcome.error}")
            return
        # what its keys do is said on the pass screen itself: said here, it stood on the main screen after escape
        self.push_screen(PassesScreen(self, outcome.value))

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self))

    def action_interrupt(self) -> None:
        self.exit_code = 130
        self.exit()


def _def_line(file: Any, kernel: str) -> int | None:
    """The line of `def KERNEL(` in the file shown (a listing.Content)."""
    return next((n for n, text in file.lines if re.match(rf"\s*def {re.escape(kernel)}\(", text)), None)


def _in_keys(message: str) -> str:
    """A compile error's advice in the explorer's keys: the command line's `-c BLOCK=...` is `v`, then BLOCK."""
    return re.sub(r"give it: -c (\w+)=\.\.\.", r"press v and give \1 a value", message)


def _stepped_targets() -> tuple[str, ...]:
    """The targets ←/→ step through: one per code Triton makes (h200 compiles as sm90 does, the same
    SASS: a step to it would change nothing on screen); any can still be typed (enter)."""
    seen: dict[tuple, str] = {}
    for name, target in TARGETS.items():
        seen.setdefault((target.backend, target.arch, target.warp_size), name)
    return tuple(seen.values())


def _error_line(message: str, where, file: str | None, now, kernel: str | None) -> int | None:
    """The line a failed compile's cursor goes to: the one its error names (`where`, else a `FILE:LINE`
    in its words: a syntax error), else the kernel's def (where there is a file to show)."""
    if where is None and file is not None:
        where = _named_line(message, file)
    line = where[1] if where is not None and file is not None and Path(where[0]) == Path(file) else None
    if line is None and now is not None and kernel:
        line = _def_line(now, kernel)
    return line


def _named_line(message: str, file: str) -> tuple[str, int] | None:
    """(file, line) of the first `FILE:LINE` of the kernel's file a message names (`kernels.py:11: syntax
    error`): the cursor goes there, not to the kernel's def (h19e)."""
    name = re.escape(Path(file).name)
    found = re.search(rf"(?:{re.escape(file)}|(?<![\w/.]){name}):(\d+)\b", message)
    return (file, int(found.group(1))) if found else None
