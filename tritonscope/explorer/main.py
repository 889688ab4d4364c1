"""The explorer's main screen: the title, the code area (code_area.py) with the error pane beneath
it, the panel beside it (widgets.py), the prompt, the status line and the keys. It draws the
session's variant (`show`), a failed compile (`failed`), the selected line (`select`), and answers
the keys of the panes, the panel and the prompt; the app (app.py) gives it what to draw."""

from __future__ import annotations

import os

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer

from ..core.stages import Stage
from ..results.explore import ExploreResult
from . import contents
from .code_area import MIN_PANE, CodeArea, coming, first_stages
from .listing import Content
from .panes import CodePane
from .session import Session
from .widgets import WIDE, ErrorPane, Findings, Prompt, SidePanel, StatusLine, TitleLine
from .words import titles


def room(width: int, panel: bool = True) -> int | None:
    """The stage panes' and the source's share of a window `width` columns wide, beside the panel where it
    is shown (#side's width, explorer.tcss); None: stacked (narrower than WIDE)."""
    beside = min(max(int(width * 0.3), 42), 72) if panel else 0
    return width - beside if width >= WIDE else None


def columns_for(panes: int, panel: bool = True) -> int:
    """The narrowest window whose stage panes number `panes` side by side (docs/explore.md says them)."""
    return next(w for w in range(WIDE, 10_000) if (room(w, panel) or 0) // MIN_PANE - 1 >= panes)


CONTROLS_SAID = "control codes: B scoreboards waited on · R, W set · Y yield · S stall cycles"


class MainScreen(Screen):
    AUTO_FOCUS = "#source"
    BINDINGS = [
        Binding("q", "app.quit", "quit"),
        Binding("question_mark", "app.help", "keys"),
        Binding("s", "stage(1)", "stage", show=False),
        Binding("S", "stage(-1)", "stage back", show=False),
        Binding("plus,equals_sign", "panes(1)", "pane+", show=False),
        Binding("minus", "panes(-1)", "pane-", show=False),
        Binding("v", "app.variant", "variant"),
        Binding("b", "app.previous_variant", "back", show=False),
        Binding("y", "copy", "copy cmd"),
        Binding("p", "app.passes", "passes"),
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

    class Ready(Message):
        """The screen is composed and laid out: the app may draw on it."""

    def __init__(self, session: Session):
        super().__init__()
        self.session = session
        # its parts, made here and kept: a cursor move reaches them (a query walks the screen's widgets)
        self.title_line, self.code, self.error_pane = TitleLine(id="title"), CodeArea(id="code"), ErrorPane(id="error")
        self.side, self.prompt, self.status_line = SidePanel(id="side"), Prompt(id="prompt"), StatusLine(id="status")

    def on_mount(self) -> None:
        self.fit(self.app.size.width)
        self.post_message(self.Ready())

    def compose(self) -> ComposeResult:
        yield self.title_line
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield self.code
                yield self.error_pane
            yield self.side
        yield self.prompt
        yield self.status_line
        yield Footer()

    def on_screen_resume(self) -> None:
        """Back from another screen (the pass pipeline's cursor may have selected another line)."""
        code = self.code
        if self.session.shown is not None and self.session.line != code.source.number:
            self.select(self.session.line, None)

    def say(self, text: str) -> None:
        """What a key did: said until the next key."""
        self.status_line.said = text

    def heard(self) -> None:
        """A key or a click: what the last key said gives way (the next says its own), on this screen."""
        if self.app.screen is self:
            self.status_line.said = ""

    def stand(self, text: str) -> None:
        """What the last compile gave, or the step compiling: said until the next such, past keys."""
        self.status_line.standing, self.status_line.said = text, ""

    def on_resize(self, event: events.Resize) -> None:
        self.status_line.said = ""  # what a key said of the window as it was ("this window has 120") is past
        self.fit(event.size.width)

    def fit(self, width: int) -> None:
        """The layout of `width` columns: the panes side by side with the panel beside them from WIDE,
        stacked below it, the panel in their place with `r`."""
        self.set_class(width >= WIDE, "wide")
        self.set_class(width < WIDE, "narrow")
        self.code.fit(self._room(width))
        if self.session.shown is not None:  # a window grown past WIDEST: TTGIR beside the machine code
            self.code.grow(first_stages(self.session.shown, width))

    def _room(self, width: int) -> int | None:
        """The stage panes' and the source's share of `width` columns side by side (beside the panel
        unless `r` hid it: the class `panel`, when wide); None: stacked."""
        return room(width, not self.has_class("panel"))

    # --- what it draws ----------------------------------------------------------------------------

    def show(self, result: ExploreResult, jump: bool = False) -> None:
        """Draws the variant on screen; the source's cursor goes to the selected line if `jump` (a new
        kernel), else stays where it is: a key that moved it may not have been answered yet."""
        code = self.code
        stages = code.stages
        if not stages or any(s not in coming(result) for s in stages):
            stages = first_stages(result, self.app.size.width)
        self.remove_class("failed")
        code.show(result, stages, self.session.previous)
        self.select(self.session.line, None if jump else code.source)
        self.side.show(result, self.session.previous)
        self.title_line.titles = titles(result)

    def redraw(self) -> None:
        """The variant on screen drawn again (its panes: only those whose listing changed)."""
        if self.session.shown is not None:
            self.show(self.session.shown)

    def mark(self, shown: ExploreResult, changes: dict[Stage, frozenset[int]]) -> None:
        if self.session.previous is not None:
            self.code.mark(changes, self.session.previous)

    def failed(self, message: str, line: int | None, file: Content | None) -> None:
        """A failed compile: its error beneath the panes, the last good stages greyed, and `file` (the
        kernel's file as it is now, where the stages were not made from it) in the source pane, its
        cursor on the error's `line` of the kernel's file."""
        self.error_pane.message = message
        self.side.detail.said = ""  # the last good variant's line cost, of a file no longer as it was
        self.add_class("failed")
        code = self.code
        code.stale = True
        if file is not None:
            code.source.show(file, keep_place=False)
            code.source.stale = False
        if line is not None:
            self.select(line, None)  # in view once the error pane has taken its rows (on_resize)
        if self.session.shown is not None:  # 78 columns: whole at 80
            self.stand("compile failed · last good stages shown (stale) · save a fix, or change it (v)")
        else:
            self.stand("compile failed · save a fix, or change the variant (v)")
            request = self.session.request  # nothing compiled yet: the title names what was asked
            asked = f"{request.kernel or os.path.basename(request.file)} · {request.target} · not compiled"
            self.title_line.titles = (asked, asked)

    def select(self, line: int | None, moved: CodePane | None) -> None:
        """Selects a Python line: every pane but the one moved scrolls to the lines it became."""
        self.session.line = line
        self.code.select(line, moved)
        self.side.detail.said = self._cost_line()

    def _cost_line(self) -> str:
        result, line = self.session.shown, self.session.line
        if result is None or line is None or self.session.failure is not None:  # the file shown is not its source
            return ""
        text = result.file_lines.get(line, "").strip()
        cost = contents.cost_of(result, line)
        return f"{cost or f'line {line}: no machine code'} · {text}"

    # --- events -----------------------------------------------------------------------------------

    @on(CodePane.Moved)
    def _moved(self, message: CodePane.Moved) -> None:
        if message.python_lines and self.session.failure is not None and message.pane is self.code.source:
            self.session.line = message.python_lines[0]  # the file as saved: the stale stages are not its own
        elif message.python_lines:
            self.select(message.python_lines[0], message.pane)
            if message.pane.id != "source":
                self.code.source.link(message.python_lines[0])

    @on(Findings.Jump)
    def _jump(self, message: Findings.Jump) -> None:
        self.select(message.line, None)
        self.remove_class("panel") if self.has_class("narrow") else None
        self.code.source.focus()

    @on(Prompt.Asked)
    def _asked(self, message: Prompt.Asked) -> None:
        pane, text = message.pane, message.text
        if message.kind == "line":
            if not text.isdigit() or not pane.go_to_number(int(text)):
                self.say(f"no line {text} in {pane.border_title}")
            return
        self._search(pane, 1)

    # --- keys -------------------------------------------------------------------------------------

    def action_stage(self, by: int) -> None:
        pane = self.focused if isinstance(self.focused, CodePane) else None
        if self.session.shown is None or pane is None or pane.id == "source":
            self.say("focus a stage pane (tab) to change its stage")
            return
        self.code.step(pane, by)

    def action_panes(self, by: int) -> None:
        """One stage pane more or fewer; more only where each keeps its MIN_PANE columns (h19e: `+`
        at 120 columns left the source pane all gutter)."""
        room = self._room(self.app.size.width)
        wanted = len(self.code.stages) + 1
        if by > 0 and room is not None and wanted > max(room // MIN_PANE - 1, 1):
            needed = columns_for(wanted, not self.has_class("panel"))
            self.say(f"{wanted} stage panes need {needed} columns (this window has {self.app.size.width})")
            return
        self.code.count(by)

    def action_controls(self) -> None:
        """Shows or hides each SASS instruction's control code (as `dump --control`), or says why there are none."""
        result, code = self.session.shown, self.code
        if result is None:
            return
        missing = contents.controls_missing(result)
        if missing is not None and not code.controls:
            self.say(missing)
            return
        code.controls = not code.controls
        machine = result.compilation.variant.target_info.vendor.machine_code
        if code.controls and machine not in code.stages:  # on, but nothing shows them yet
            self.say(f"control codes on: they show in a {machine.title} pane (tab to a stage pane, then s)")
        elif code.controls:
            self.say(CONTROLS_SAID if result.unread is None else "the control codes come with the SASS")

    def action_copy(self) -> None:
        command = self.session.command_line()
        if command:
            self.app.copy_to_clipboard(command)
            self.say(f"copied: {command}")
            if len(f"copied: {command}") > self.app.size.width - 2:  # cut there: whole in a note that wraps,
                # to be read where the terminal keeps the clipboard to itself (OSC 52 refused)
                self.app.notify(command, title="copied", timeout=20, markup=False)

    def action_theme(self) -> None:
        self.app.theme = "textual-light" if self.app.current_theme.dark else "textual-dark"

    def action_panel(self) -> None:
        self.toggle_class("panel")
        self.fit(self.app.size.width)  # the panel's columns given to the panes, or taken back

    def action_findings(self) -> None:
        self.remove_class("panel") if self.has_class("wide") else self.add_class("panel")
        self.side.findings.focus()

    def action_prompt(self, kind: str) -> None:
        pane = self.focused if isinstance(self.focused, CodePane) else self.code.source
        self.prompt.open(kind, pane)

    def action_close_prompt(self) -> None:
        self.prompt.close()

    def action_search_again(self, direction: int) -> None:
        self._search(self.focused if isinstance(self.focused, CodePane) else None, direction)

    def _search(self, pane: CodePane | None, direction: int) -> None:
        searched = self.prompt.searched
        if pane is not None and searched and not pane.find(searched, direction > 0):
            self.say(f"'{searched}' is not in {pane.border_title}")
