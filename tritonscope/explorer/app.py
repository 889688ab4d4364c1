"""The explorer's screen: the Python source and one to three stage panes linked by the selected
Python line, the resource panel and explain's findings, a status line; variants by keystroke,
compiled in the child (compiles.py) while the screen stays live, and recompiled on every save."""

from __future__ import annotations

import asyncio
import gc
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from ..core.model import VariantRequest
from ..core.source import local_file
from ..core.stages import Stage
from ..core.targets import TARGETS
from ..core.watching import saves
from ..isolate import Outcome
from ..results.catalog import KernelList
from ..results.explore import CompileFailure, ExploreResult
from ..results.passes import PassesResult
from . import contents
from .collector import QUIET, Collector
from .compiles import Compiles
from .panes import CodePane
from .screens import HelpScreen, KernelListScreen, PassesScreen, VariantScreen
from .session import Session, asked_knobs, knobs

WIDE = 120  # columns from which the panes sit side by side, with the panel beside them
WIDEST = 200  # columns from which TTGIR is shown too at first
PANES = 3  # stage panes at most
PARTIAL_WAIT = 0.03  # seconds a compile's stages so far wait for its next stage before being drawn
SWITCH_INTERVAL = 0.001  # seconds a thread holds the interpreter before another waiting gets it (on_mount)
ANSWERED = (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)  # not each mouse move
CONTROLS_SAID = "control codes: B scoreboards waited on · R, W set · Y yield · S stall cycles"


class _Handed(Message):
    """A thread's call for the app's loop (`ExplorerApp._from_thread`)."""

    def __init__(self, method: Callable[..., None], args: tuple):
        super().__init__()
        self.method, self.args = method, args


class ExplorerApp(App):
    TITLE = "tritonscope explore"
    AUTO_FOCUS = "#source"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    #title { height: 1; background: $primary-background; color: $text; padding: 0 1; }
    #status { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    #body { height: 1fr; }
    #code { width: 1fr; layout: horizontal; }
    #code CodePane { width: 1fr; height: 1fr; }
    #side { width: 42; border-left: solid $panel-lighten-2; }
    #resources { height: auto; padding: 0 1; }
    #findings { height: 1fr; border: round $panel-lighten-2; }
    #findings:focus { border: round $accent; }
    #detail { height: 6; padding: 0 1; color: $text-muted; }
    #error { height: auto; max-height: 12; border: round $error; color: $error; padding: 0 1; display: none; }
    #prompt { height: 3; display: none; }
    .narrow #code { layout: vertical; }
    .narrow #side { display: none; }
    .narrow.panel #side { display: block; width: 1fr; border-left: none; }
    .narrow.panel #code { display: none; }
    .wide.panel #side { display: none; }
    .failed #error { display: block; }
    """
    BINDINGS = [
        Binding("q", "quit", "quit"),
        Binding("ctrl+c", "interrupt", "quit", show=False, priority=True),
        Binding("question_mark", "help", "keys"),
        Binding("s", "stage(1)", "stage", show=False),
        Binding("S", "stage(-1)", "stage back", show=False),
        Binding("plus,equals_sign", "panes(1)", "pane+", show=False),
        Binding("minus", "panes(-1)", "pane-", show=False),
        Binding("v", "variant", "variant"),
        Binding("b", "previous_variant", "back", show=False),
        Binding("y", "copy", "copy cmd"),
        Binding("p", "passes", "passes"),
        Binding("c", "controls", "codes"),
        Binding("r", "panel", "panel"),
        Binding("f", "findings", "findings", show=False),
        Binding("slash", "prompt('search')", "search"),
        Binding("n", "search_again(1)", "next match", show=False),
        Binding("N", "search_again(-1)", "previous match", show=False),
        Binding("colon", "prompt('line')", "go to line", show=False),
        Binding("t", "theme", "theme", show=False),
        Binding("escape", "close_prompt", "close", show=False),
    ]

    def __init__(self, compiles: Compiles, request: VariantRequest, first: Any, watch: bool = True):
        super().__init__()
        self.compiles, self.first, self.follow_saves = compiles, first, watch
        self.session = Session(request)
        self.pane_stages: list[Stage] = []
        self.controls_shown = False  # the SASS panes' gutter: each instruction's control code (`c`)
        self.exit_code = 0
        # ticket -> (what: variant, live or pipeline; its memory key; when it started)
        self._pending: dict[int, tuple[str, Any, float]] = {}
        self._step = ""
        self._due: ExploreResult | None = None  # shown, its follow-up started once it is painted
        self._resources_said: Text | None = None  # what the resource panel shows
        self._early_due: dict[int, ExploreResult] = {}  # ticket -> its newest stages so far, not shown yet
        self._searched = ""
        self._how = ""
        self._said = ""
        self._prompting = ""
        self.leaving = False
        self._stop = threading.Event()
        self._watched: str | None = None
        self._listing: KernelList | None = None  # the file's kernels, where the user chose one
        self._collector = Collector()  # Python's full garbage collections, between keys
        compiles.on_step = lambda ticket, step: self._from_thread(self._told, ticket, step)
        compiles.on_done = lambda ticket, outcome: self._from_thread(self._done, ticket, outcome)
        compiles.on_early = self._early_from_thread

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        with Horizontal(id="body"):
            with Vertical(id="code"):
                yield CodePane(id="source")
                for index in range(PANES):
                    yield CodePane(id=f"stage-{index}")
                yield Static(id="error")
            with Vertical(id="side"):
                yield Static(id="resources")
                yield OptionList(id="findings")
                yield Static(id="detail")
        yield Input(id="prompt")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGHUP):  # the screen ends as after q: the terminal as it was
            loop.add_signal_handler(signum, self._terminated, signum)
        self._layout(self.size.width)
        self._take(self.first, self.session.key(self.session.request), "opened")
        self.set_interval(0.2, self._tick)
        self._collector.start()
        self.set_interval(QUIET, self._collect_when_quiet)
        self.compiles.spare()
        # The compile's reader (a thread) takes the interpreter back within a millisecond while the
        # screen is drawn: at Python's default 5 ms, each of its looks waited that long, and it fell
        # 50-120 ms behind a stage named (the H100 machine's CPU). This process only draws.
        sys.setswitchinterval(SWITCH_INTERVAL)

    def on_unmount(self) -> None:
        self._collector.stop()

    def _collect_when_quiet(self) -> None:
        """A full collection in a pause of the input, but not while a variant compiles: its stages
        are drawn as they come, and a collection would hold them back."""
        if not self.compiling:
            self._collector.tick()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, ANSWERED):
            self._collector.input()
        await super().on_event(event)

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
        if not self.leaving:
            message.method(*message.args)

    def _terminated(self, signum: int) -> None:
        self.exit_code = 128 + signum
        self.exit()

    def _watch(self, file: str | None) -> None:
        """Recompiles on every save of `file` (the kernel's), from now on."""
        if not self.follow_saves or file is None or file == self._watched:
            return
        self.stop_watching()
        self._stop, self._watched = threading.Event(), file
        threading.Thread(target=self._follow_saves, args=(file, self._stop), daemon=True).start()

    def _follow_saves(self, file: str, stop: threading.Event) -> None:
        for _ in saves([file], stop):
            self._from_thread(self.recompile)

    def stop_watching(self) -> None:
        self._stop.set()
        self._watched = None

    def on_resize(self, event) -> None:
        self._layout(event.size.width)

    def _layout(self, width: int) -> None:
        wide = width >= WIDE
        self.default_screen.set_class(wide, "wide")
        self.default_screen.set_class(not wide, "narrow")
        if self.session.shown is not None and not self.pane_stages:
            self._default_panes()
        if self.session.shown is not None:
            self.query_one("#title", Static).update(_title(self.session.shown, wide), layout=False)
        if self._said:
            self._status(self._said, width)
        self._arrange()

    @property
    def compiling(self) -> bool:
        """Whether a compile (or a pass-pipeline capture) is in flight, or a variant's follow-up is due
        once it is painted (`_after_show`)."""
        return bool(self._pending) or self._due is not None

    # --- results in -------------------------------------------------------------------------------

    def _take(self, value: Any, key, how: str) -> None:
        """A compile's value on screen: a variant, a failure, or a list of kernels to choose from."""
        if isinstance(value, ExploreResult):
            self._show(value, key, how)
            self._watch(value.compilation.kernel.file)
        elif isinstance(value, CompileFailure):
            self._failed(value.message + (f" ({value.hint})" if value.hint else ""), value.where)
            self._watch(getattr(value.request.source, "path", None))
        else:
            self._listing = value if isinstance(value, KernelList) else None
            self.push_screen(KernelListScreen(value, self.session.request), self._chosen)

    def _early_from_thread(self, ticket: int, result: ExploreResult) -> None:
        self._early_due[ticket] = result  # the newest: one the app has not drawn yet is passed over
        self._from_thread(self._early, ticket)

    def _early(self, ticket: int) -> None:
        """The stages the variant compiling has so far (Triton makes the next, or ptxas the binary):
        shown, not kept. Those that are not yet all the stages before the binary wait PARTIAL_WAIT
        for the next, and are drawn with it where it comes by then: drawing them would hold the
        screen while it comes (PTX follows LLVM IR in 20 ms on a small kernel; drawing a pane takes
        as long)."""
        result = self._early_due.get(ticket)
        if result is not None and result.partial:
            self.set_timer(PARTIAL_WAIT, lambda: self._early_now(ticket, result))
        elif result is not None:
            self._early_now(ticket, result)

    def _early_now(self, ticket: int, result: ExploreResult) -> None:
        if self._early_due.get(ticket) is not result:  # a newer one came: drawn, or waiting
            return
        del self._early_due[ticket]
        what, key, _ = self._pending.get(ticket, ("", None, 0.0))
        if what == "variant":  # a pane whose stage is the same as before is not drawn again
            self._show(result, key, "Triton's stages so far" if result.partial else "Triton's stages; ptxas runs")

    def _show(self, result: ExploreResult, key, how: str) -> None:
        """Shows a variant (`how` it came: compiled, from memory), and marks what changed in a thread."""
        session = self.session
        self._status(f"{how}: {_describe(result)}")
        self._how = how
        kernel_changed = session.shown is None or session.kernel_file != result.compilation.kernel.file
        session.show(result) if result.early else session.arrived(key, result)
        jump = session.line is None or kernel_changed
        if jump:
            session.line = result.compilation.kernel.line
        if not self.pane_stages or any(s not in _coming(result) for s in self.pane_stages):
            self._default_panes()
        self.default_screen.remove_class("failed")
        self._redraw(jump)
        self._due = result
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
        if self._due is result:
            self._due = None
        if self.session.shown is result and not self.leaving and not result.partial:  # more stages come
            self.run_worker(self._mark_changes, thread=True, exclusive=True, group="changes")
            if not result.early:  # its compile still runs: a follow-up now would cancel it
                self._follow_up()

    def _follow_up(self) -> None:
        """What comes after Triton's stages, one task at a time: the SASS (nvdisasm) with explain's cost and
        findings, then the registers live per line (nvdisasm's life ranges); for the variant on screen,
        then for the one before it (the diff's other side, whose follow-up a newer request cancelled)."""
        session = self.session
        for result in (session.shown, session.previous):
            if result is None or session.failure is not None and result is session.shown:
                continue
            if result.unread is not None:
                make, what = self.compiles.machine_code, "machine"
            elif not result.explained.live_registers and Stage.SASS in result.compilation.stages:
                make, what = self.compiles.live_registers, "live"
            else:
                continue
            self._pending[make(result)] = (what, session.key_of(result), time.monotonic())
            return

    def _completed(self, key, outcome: Outcome) -> None:
        """A variant completed (its SASS, its live registers): kept, shown if on screen, and followed up."""
        if not outcome.ok or not isinstance(outcome.value, ExploreResult):
            if not outcome.cancelled and outcome.error:
                self._status(f"the SASS could not be read: {outcome.error}")
            return
        result, session = outcome.value, self.session
        # which one it completes, by its key: after a save, both have the same request
        previous = session.previous is not None and session.key_of(session.previous) == key
        shown = session.shown is not None and session.key_of(session.shown) == key
        session.memory[key] = result
        if previous:
            session.previous = result
        elif shown and session.failure is None:
            session.shown = result
            self._redraw()
            self._status(f"{self._how}: {_describe(result)}")  # no longer "reading the SASS"
        else:
            return
        self.run_worker(self._mark_changes, thread=True, exclusive=True, group="changes")
        self._follow_up()
        gc.freeze()  # as after _show

    def _failed(self, message: str, where: tuple[str, int] | None = None) -> None:
        if self.session.shown is not None and self.session.shown.early:  # ptxas failed: the last good stages
            self.session.shown = self.session.previous
            self._redraw()
        self.session.failure = CompileFailure(self.session.request, message, where=where)
        self.query_one("#error", Static).update(f"error: {message}")
        self.default_screen.add_class("failed")
        for pane in self.query(CodePane):
            pane.stale = True
        source, file = self.query_one("#source", CodePane), self.session.kernel_file
        if self.session.shown is None:  # nothing compiled yet: the kernel file, to read its error's line
            path = local_file(self.session.request.source)
            lines = contents.file_only(path) if path is not None else None
            if lines is not None:
                source.show(lines, keep_place=False)
                source.stale, file = False, str(path)
        if where is not None and file is not None and Path(where[0]) == Path(file):
            self._select(where[1], None)  # in view once the error pane has taken its rows (on_resize)
        if self.session.shown is not None:  # 78 columns: whole at 80
            self._status("compile failed · last good stages shown (stale) · save a fix, or change it (v)")
        else:
            self._status("compile failed · save a fix, or change the variant (v)")

    def _mark_changes(self) -> None:
        changes = self.session.changes()  # in a thread: a diff of every stage
        self._from_thread(self._marked, self.session.shown, changes)

    def _marked(self, shown: ExploreResult, changes: dict) -> None:
        if shown is not self.session.shown:
            return
        for index, stage in enumerate(self.pane_stages):
            pane = self.query_one(f"#stage-{index}", CodePane)
            pane.content = replace(pane.content, changed=changes.get(stage, frozenset()))
            pane.refresh()
        count = sum(len(lines) for lines in changes.values())
        previous = self.session.previous
        if previous is not None:
            change = _change(shown, previous) or "against the file before the save"  # else the same variant
            self._status(f"{self._how} · {count} lines changed (▌) · {change}")

    # --- drawing ----------------------------------------------------------------------------------

    def _default_panes(self) -> None:
        result = self.session.shown
        if result is None:
            return
        machine = result.compilation.variant.target_info.vendor.machine_code
        wanted = [Stage.TTGIR, machine] if self.size.width >= WIDEST else [machine]
        self.pane_stages = [s for s in wanted if s in _coming(result)] or list(result.stages[-1:])

    def _arrange(self) -> None:
        for index in range(PANES):
            self.query_one(f"#stage-{index}", CodePane).display = index < len(self.pane_stages)

    def _redraw(self, jump: bool = False) -> None:
        """Draws the variant on screen. The source's cursor stays where it is unless `jump` (a new kernel):
        a key that moved it may not have reached `_moved` yet, and the line the session knows is then
        the one before."""
        result = self.session.shown
        if result is None:
            return
        source = self.query_one("#source", CodePane)
        source.show(contents.source(result))
        source.stale = False
        for index, stage in enumerate(self.pane_stages):
            pane = self.query_one(f"#stage-{index}", CodePane)
            shown = contents.stage(result, stage, controls=self.controls_shown)
            pane.show(shown, keep_place=pane.content.title.startswith(stage.title))
            pane.stale = False
        self._arrange()
        self._select(self.session.line, None if jump else source)
        self._panel(result)
        self.query_one("#title", Static).update(_title(result, self.size.width >= WIDE), layout=False)

    def _select(self, line: int | None, moved: CodePane | None) -> None:
        """Selects a Python line: every pane but the one moved scrolls to the lines it became."""
        self.session.line = line
        for pane in self.query(CodePane):
            pane.link(line, scroll=pane is not moved)
        source = self.query_one("#source", CodePane)
        if moved is not source and line is not None:
            source.go_to_number(line) if source.number != line else None
        self.query_one("#detail", Static).update(self._cost_line(), layout=False)

    def _cost_line(self) -> str:
        result, line = self.session.shown, self.session.line
        if result is None or line is None:
            return ""
        text = result.file_lines.get(line, "").strip()
        cost = contents.cost_of(result, line)
        return f"{cost or f'line {line}: no machine code'} · {text}"

    def _panel(self, result: ExploreResult) -> None:
        if result.early:
            said = Text("registers, spills, shared memory and occupancy: ptxas is making the binary…")
        else:
            said = _resource_text(contents.resources(result, self.session.previous))
        resources = self.query_one("#resources", Static)
        if said != self._resources_said:  # a layout pass (its height may change): every pane drawn again
            resources.update(said)
            self._resources_said = said
        listed = tuple(
            f"{f'line {f.line}' if f.line is not None else 'kernel'}: {f.kind}" for f in result.explained.findings
        )
        findings = self.query_one("#findings", OptionList)
        if listed != tuple(str(option.prompt) for option in findings.options):  # else not drawn again
            findings.clear_options()
            findings.add_options(Option(text, id=str(index)) for index, text in enumerate(listed))
        if findings.border_title != f"findings ({len(listed)})":
            findings.border_title = f"findings ({len(listed)})"

    # --- events -----------------------------------------------------------------------------------

    @on(CodePane.Moved)
    def _moved(self, message: CodePane.Moved) -> None:
        self.call_after_refresh(self._collector.answered)  # once the panes' new rows are on screen
        if message.python_lines:
            self._select(message.python_lines[0], message.pane)
            if message.pane.id == "source":
                return
            self.query_one("#source", CodePane).link(message.python_lines[0])

    @on(OptionList.OptionHighlighted, "#findings")
    def _finding_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        result = self.session.shown
        if result is not None and event.option.id is not None:
            f = result.explained.findings[int(event.option.id)]
            text = f"{f.message}\nevidence: {f.evidence}" + (f"\ntry: {f.suggestion}" if f.suggestion else "")
            self.query_one("#detail", Static).update(text, layout=False)

    @on(OptionList.OptionSelected, "#findings")
    def _finding_chosen(self, event: OptionList.OptionSelected) -> None:
        result = self.session.shown
        if result is not None and event.option.id is not None:
            finding = result.explained.findings[int(event.option.id)]
            if finding.line is not None:
                self._select(finding.line, None)
                main = self.default_screen
                main.remove_class("panel") if main.has_class("narrow") else None
                self.query_one("#source", CodePane).focus()

    def _told(self, ticket: int, step: str) -> None:
        if ticket in self._pending:
            self._step = step

    def _done(self, ticket: int, outcome: Outcome) -> None:
        what, key, started = self._pending.pop(ticket, ("", None, 0.0))
        if what == "pipeline":
            self._passes_ready(outcome)
        elif what in ("machine", "live"):
            self._completed(key, outcome)
        elif not what:
            return
        elif outcome.ok:
            self._take(outcome.value, key, f"compiled in {time.monotonic() - started:.1f} s")
        else:
            self._failed(outcome.error or "the compile failed")

    def _tick(self) -> None:
        if self._pending and not self.leaving:
            kind, _, started = next(iter(self._pending.values()))
            shown = self.session.shown
            if kind == "machine" and shown is not None and shown.unread is not None:
                self._status(f"{self._how}; reading the SASS (nvdisasm)… {time.monotonic() - started:.1f} s")
            if kind in ("live", "machine"):
                return  # the stages are on screen: the status says what they are
            what = self._step or "starting"
            asked = _describe_request(self.session.request)
            self._status(f"compiling: {what}… {time.monotonic() - started:.1f} s · {asked}")

    def _status(self, text: str, width: int | None = None) -> None:
        # layout=False here and for the title and the detail: their heights are fixed (CSS), and a
        # layout pass repaints every pane (40-80 ms at 240x60), five times a second while compiling
        self._said = text  # fitted again to a new width
        fitted = _fit(text, (width or self.size.width) - 2)
        self.query_one("#status", Static).update(fitted, layout=False)

    # --- variants ---------------------------------------------------------------------------------

    def ask(self, request: VariantRequest) -> None:
        """Shows `request`: from memory at once when compiled before, else compiled in the background."""
        self.session.request = request
        remembered = self.session.remembered(request)
        if remembered is not None:
            self.compiles.cancel()
            self._pending.clear()
            self._show(remembered, self.session.key(request), "from memory")
            return
        ticket = self.compiles.submit(request)
        self._pending = {ticket: ("variant", self.session.key(request), time.monotonic())}
        self._step = ""
        self._tick()

    def recompile(self) -> None:
        """The kernel file was saved: the variant on screen compiled again."""
        self.ask(self.session.request)

    def action_variant(self) -> None:
        shown, request, names = self.session.shown, self.session.request, tuple(TARGETS)
        if shown is not None:
            self.push_screen(VariantScreen(self, knobs(shown, names), request))
        elif self.session.failure is not None:  # nothing compiled yet: the values asked for, to mend
            listed = self._listing.kernels if self._listing is not None else ()
            spec = next((k for k in listed if k.name == request.kernel), None)
            self.push_screen(VariantScreen(self, asked_knobs(request, spec, names), request))

    def action_previous_variant(self) -> None:
        previous = self.session.previous
        if previous is not None:
            self.ask(previous.request)

    def action_copy(self) -> None:
        command = self.session.command_line()
        if command:
            self.copy_to_clipboard(command)
            self._status(f"copied: {command}")
            if len(f"copied: {command}") > self.size.width - 2:  # cut there: whole in a note that wraps,
                # to be read where the terminal keeps the clipboard to itself (OSC 52 refused)
                self.notify(command, title="copied", timeout=20, markup=False)

    def _chosen(self, request: VariantRequest | None) -> None:
        if request is None:
            if self.session.shown is None:
                self.exit()
            return
        self.ask(request)

    # --- panes, panel, prompt ---------------------------------------------------------------------

    def action_stage(self, by: int) -> None:
        result = self.session.shown
        pane = self.focused if isinstance(self.focused, CodePane) else None
        if result is None or pane is None or not pane.id or not pane.id.startswith("stage-"):
            self._status("focus a stage pane (tab) to change its stage")
            return
        index = int(pane.id.split("-")[1])
        stages = list(result.stages)
        current = self.pane_stages[index]
        self.pane_stages[index] = stages[(stages.index(current) + by) % len(stages)]
        self._redraw()
        self._marked(result, self.session.changes()) if self.session.previous is not None else None

    def action_panes(self, by: int) -> None:
        result = self.session.shown
        if result is None:
            return
        count = min(max(len(self.pane_stages) + by, 1), PANES, len(result.stages))
        while len(self.pane_stages) < count:
            unused = [s for s in result.stages if s not in self.pane_stages]
            self.pane_stages.insert(0, (unused or list(result.stages))[-1])
        del self.pane_stages[count:]
        self._redraw()

    def action_controls(self) -> None:
        """Shows or hides each SASS instruction's control code (as `dump --control`), or says why there are none."""
        result = self.session.shown
        if result is None:
            return
        missing = contents.controls_missing(result)
        if missing is not None and not self.controls_shown:
            self._status(missing)
            return
        self.controls_shown = not self.controls_shown
        self._redraw()
        self._marked(result, self.session.changes()) if self.session.previous is not None else None
        if self.controls_shown:
            self._status(CONTROLS_SAID if result.unread is None else "the control codes come with the SASS")

    def action_panel(self) -> None:
        self.default_screen.toggle_class("panel")

    def action_findings(self) -> None:
        main = self.default_screen
        main.remove_class("panel") if main.has_class("wide") else main.add_class("panel")
        self.query_one("#findings", OptionList).focus()

    def action_prompt(self, kind: str) -> None:
        prompt = self.query_one("#prompt", Input)
        self._prompting = kind
        prompt.placeholder = "search this pane for…" if kind == "search" else "go to line…"
        prompt.value = ""
        self._return_to = self.focused if isinstance(self.focused, CodePane) else self.query_one("#source", CodePane)
        prompt.display = True  # at once, not at the next restyle or refresh: the keys typed next go to it
        self.screen.set_focus(prompt)

    def on_key(self, event: events.Key) -> None:
        """Keys typed just after `/` or `:`, before the prompt has the focus, still go to it."""
        prompt = self.query_one("#prompt", Input)
        if not prompt.display:  # what the prompt itself takes never reaches here
            return
        if event.key == "enter":
            event.stop()
            self.call_later(prompt.action_submit)
        elif event.is_printable and event.character:
            event.stop()
            prompt.insert_text_at_cursor(event.character)

    def action_close_prompt(self) -> None:
        prompt = self.query_one("#prompt", Input)
        if prompt.display:
            prompt.display = False
            self._return_to.focus()

    @on(Input.Submitted, "#prompt")
    def _prompted(self, event: Input.Submitted) -> None:
        pane = self._return_to
        self.action_close_prompt()
        text = event.value.strip()
        if self._prompting == "line":
            if not text.isdigit() or not pane.go_to_number(int(text)):
                self._status(f"no line {text} in {pane.border_title}")
            return
        self._searched = text
        self._search(pane, 1)

    def action_search_again(self, direction: int) -> None:
        self._search(self.focused if isinstance(self.focused, CodePane) else None, direction)

    def _search(self, pane: CodePane | None, direction: int) -> None:
        if pane is not None and self._searched and not pane.find(self._searched, direction > 0):
            self._status(f"'{self._searched}' is not in {pane.border_title}")

    def action_passes(self) -> None:
        if self.session.shown is None:
            return
        ticket = self.compiles.pipeline(self.session.request)
        self._pending = {ticket: ("pipeline", None, time.monotonic())}
        self._step = "capturing the pass pipeline"

    def _passes_ready(self, outcome: Outcome) -> None:
        if not outcome.ok or not isinstance(outcome.value, PassesResult):
            self._status(f"the pass pipeline could not be captured: {outcome.error}")
            return
        self._status(f"{len(outcome.value.records)} passes: enter shows one, escape goes back")
        self.push_screen(PassesScreen(self, outcome.value))

    def action_theme(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self))

    def action_interrupt(self) -> None:
        self.exit_code = 130
        self.exit()


def _coming(result: ExploreResult) -> set[Stage]:
    """The stages a variant has, or will have once Triton makes them (and the binary), or once its
    machine code is read."""
    c = result.compilation
    vendor = c.variant.target_info.vendor
    if result.early:
        return {*result.stages, *vendor.stages_for(c.kernel.language)[1:]}
    return set(result.stages) | ({vendor.machine_code} if result.unread is not None else set())


def _describe_request(request: VariantRequest) -> str:
    changed = [f"{k}={v}" for k, v in (*request.constexprs, *request.args)]
    changed += [f"{k}={v}" for k, v in request.options.items()]
    return " ".join([request.kernel or request.file, *changed, request.target if request.target != "auto" else ""])


def _describe(result: ExploreResult) -> str:
    """A variant in one phrase: its constexprs, warps and stages, target, Triton release."""
    return ", ".join(_word(name, value) for name, value in _values(result).items())


def _change(result: ExploreResult, before: ExploreResult) -> str:
    """What differs from `before`, as `BLOCK_SIZE_N=64 (was 128)`; empty when nothing does (a save)."""
    now, then = _values(result), _values(before)
    words = [
        _word(name, value) + (f" (was {then[name]})" if name in then else "")
        for name, value in now.items()
        if then.get(name) != value
    ]
    return ", ".join(words + [f"no {name} (was {value})" for name, value in then.items() if name not in now])


def _values(result: ExploreResult) -> dict[str, str]:
    v, options = result.compilation.variant, result.compilation.options
    values = {name: str(value) for name, value in v.constexprs.items()}
    values |= {name: str(options[name]) for name in ("num_warps", "num_stages") if options.get(name) is not None}
    values["target"] = v.target
    if result.request.triton:
        values["triton"] = result.request.triton
    return values


def _word(name: str, value: str) -> str:
    """One value as the status line writes it: `BLOCK_SIZE=256`, `sm90`, `triton 3.5.1`."""
    return value if name == "target" else f"triton {value}" if name == "triton" else f"{name}={value}"


def _fit(text: str, width: int) -> str:
    """`text` in `width` columns, its end cut with an ellipsis where longer: what matters comes first."""
    return text if len(text) <= width else text[: max(width - 1, 0)].rstrip(" ,·;") + "…"


def _title(result: ExploreResult, wide: bool) -> str:
    """The kernel and its figures in one line, short enough for 80 columns when not `wide`."""
    c = result.compilation
    r = c.resources
    words = c.variant.target_info.vendor.words
    shared = f"{r.shared_bytes / 1024:.4g} KiB" if r.shared_bytes >= 1024 else f"{r.shared_bytes} B"
    if result.partial:
        return f"{c.kernel.name} · {c.variant.target} · Triton is making its stages…"
    if result.early:
        return f"{c.kernel.name} · {c.variant.target} · Triton's stages · ptxas is making the binary…"
    if not wide:
        return (
            f"{c.kernel.name} · {c.variant.target} · {r.registers} regs · {r.spills} spills · {shared} shared · "
            f"occupancy {r.occupancy.percent:.0f}%"
        )
    return (
        f"{c.kernel.name} · {c.variant.target} · Triton {c.triton_version} · {r.registers} {words.registers} · "
        f"{r.spills} spills · {shared} {words.shared} · occupancy {r.occupancy.percent:.0f}%"
    )


def _resource_text(rows: list[tuple[str, str, str, str]]) -> Text:
    """Each figure, its change against the previous variant, and beneath it what it means."""
    text = Text()
    for name, value, change, meaning in rows:
        text.append(f"{name:<14}", "bold")
        text.append(f"{value:>12}")
        if change:
            text.append(f"  {change}", "bold yellow")
        text.append(f"\n  {meaning}\n", "dim")
    return text
