"""The explorer's small widgets, each drawing its own state (reactive, as Textual's own widgets
do): the title and status lines, fitted to their width whatever it becomes; the error pane; the
prompt of `/` and `:`; the panel beside the panes (the resource figures, explain's findings, the
selected line's cost). What they say is made in words.py and contents.py."""

from __future__ import annotations

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ..results.explain import Finding
from ..results.explore import ExploreResult
from . import contents
from .panes import CodePane
from .words import Row, fit, resource_text

WIDE = 120  # columns from which the panes sit side by side, with the panel beside them


class StatusLine(Widget):
    """What the last compile gave or the step compiling (`standing`), or what a key did (`said`, until
    the next key: a search's miss, a hint, stays no longer than what it was about): cut at its end
    with `…` where longer than the line (what matters comes first), and fitted again at every width."""

    standing = reactive("")
    said = reactive("")

    def render(self) -> Text:
        return Text(fit(self.said or self.standing, self.content_size.width), no_wrap=True)


class TitleLine(Widget):
    """The kernel and its figures: the short form below WIDE columns, the wide one from there."""

    titles: reactive[tuple[str, str]] = reactive(("", ""))  # (narrow, wide), words.titles

    def render(self) -> Text:
        narrow, wide = self.titles
        return Text(fit(wide if self.size.width >= WIDE else narrow, self.content_size.width), no_wrap=True)


class ErrorPane(Widget):
    """The last compile's error, as the command line says it: the kernel's file and line, and its
    source line with a caret. Beneath the panes, as wide as they are (the screen's `failed` class)."""

    message = reactive("", layout=True)

    def render(self) -> Text:
        return Text(f"error: {self.message}")


class Prompt(Input):
    """`/` (a search of the pane that had the focus) or `:` (a line to go to in it), at the bottom;
    enter posts `Asked` with what was typed, escape closes it."""

    class Asked(Message):
        def __init__(self, kind: str, text: str, pane: CodePane):
            super().__init__()
            self.kind, self.text, self.pane = kind, text, pane

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.kind = "search"
        self.pane: CodePane | None = None  # the pane it searches, and gives the focus back to
        self.searched = ""  # the last search, for `n` and `N`

    def open(self, kind: str, pane: CodePane) -> None:
        self.kind, self.pane = kind, pane
        self.placeholder = "search this pane for…" if kind == "search" else "go to line…"
        self.value = ""
        self.display = True  # at once, not at the next restyle or refresh: the keys typed next go to it
        self.screen.set_focus(self)

    def close(self) -> bool:
        """Closed, the focus back to its pane; whether it was open."""
        if not self.display:
            return False
        self.display = False
        if self.pane is not None:
            self.pane.focus()
        return True

    def typed(self, event: events.Key) -> None:
        """Keys typed just after `/` or `:`, before the prompt has the focus, still go to it."""
        if not self.display:  # what the prompt itself takes never reaches here
            return
        if event.key == "enter":
            event.stop()
            self.call_later(self.action_submit)
        elif event.is_printable and event.character:
            event.stop()
            self.insert_text_at_cursor(event.character)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        pane = self.pane
        self.close()
        if pane is not None:
            self.searched = event.value.strip() if self.kind == "search" else self.searched
            self.post_message(self.Asked(self.kind, event.value.strip(), pane))


class Resources(Widget):
    """The resource figures, each with its change against the variant before and its meaning (beside
    it where the panel is wide). While ptxas makes the binary a note takes their place, as tall as
    they were: a panel that keeps its height asks no layout pass, which would draw every pane again."""

    rows: reactive[tuple[Row, ...]] = reactive(())
    note = reactive("")  # said in the figures' place: they are not known yet

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self._heights: dict[tuple, int] = {}  # (rows, note, width) -> lines, the last asked

    def render(self) -> Text:
        if self.note:
            return Text(self.note)
        return resource_text(self.rows, self.content_size.width)

    def get_content_height(self, container, viewport, width: int) -> int:
        key = (self.rows, self.note, width)
        if key not in self._heights:  # wrapping them takes a millisecond or two: once per variant
            lines = self._lines(resource_text(self.rows, width), width) if self.rows else 0
            self._heights = {key: max(lines, self._lines(Text(self.note), width) if self.note else 1)}
        return self._heights[key]

    def _lines(self, text: Text, width: int) -> int:
        return len(text.wrap(self.app.console, max(width, 1)))

    def show(self, rows: tuple[Row, ...], note: str = "") -> None:
        """The figures (kept, to size the note's place, when only a `note` is given)."""
        width = self.content_size.width
        before = self.get_content_height(None, None, width) if width else None
        self.note = note
        if rows or not note:
            self.rows = rows
        if before is not None and self.get_content_height(None, None, width) != before:
            self.refresh(layout=True)  # taller or shorter (hidden, or not laid out yet: its next layout sizes it)


class Findings(OptionList):
    """explain's findings of the variant on screen, `line 33: kind` each (those of the variant before
    while the new one's SASS is still to be read); enter on one posts `Jump` to its line. j and k move
    as in the panes; none found is said."""

    BINDINGS = [
        Binding("j", "cursor_down", "down", show=False),
        Binding("k", "cursor_up", "up", show=False),
    ]
    NONE = "none: explain has nothing to say of this variant"
    WAITING = "none yet: explain reads the kernel once it compiles"

    class Jump(Message):
        """Enter on a finding: every pane to its line."""

        def __init__(self, line: int):
            super().__init__()
            self.line = line

    def __init__(self, *, id: str | None = None):
        super().__init__(Option(self.WAITING, disabled=True), id=id)  # a kernel that never compiled: said
        self.findings: tuple[Finding, ...] = ()
        self.border_title = "findings"

    def show(self, findings: tuple[Finding, ...]) -> None:
        """The findings listed, unless they read as those listed (a list drawn again costs a frame)."""
        self.findings = findings
        listed = tuple(f"{f'line {f.line}' if f.line is not None else 'kernel'}: {f.kind}" for f in findings)
        if (listed or (self.NONE,)) != tuple(str(option.prompt) for option in self.options):
            self.clear_options()
            self.add_options(Option(text, id=str(index)) for index, text in enumerate(listed))
            if not listed:
                self.add_option(Option(self.NONE, disabled=True))
        if self.border_title != f"findings ({len(listed)})":
            self.border_title = f"findings ({len(listed)})"

    def on_focus(self) -> None:
        """Focused (`f`): the first finding highlighted, its detail shown beneath."""
        if self.highlighted is None and self.findings:
            self.highlighted = 0

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        line = self.findings[int(event.option.id)].line if event.option.id is not None else None
        if line is not None:
            self.post_message(self.Jump(line))


class Detail(VerticalScroll, can_focus=False):
    """The selected line's cost as explain says it, or the finding highlighted: what it found, what to
    try, its evidence. Longer than its place, it scrolls (the wheel; its scrollbar says there is more)."""

    said = reactive("")

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self._text = Static()

    def compose(self) -> ComposeResult:
        yield self._text

    def watch_said(self, said: str) -> None:
        self._text.update(Text(said))
        self.scroll_home(animate=False)


class SidePanel(Vertical):
    """Beside the panes when wide, in their place with `r` when not: the figures, the findings, and
    beneath them the detail of the selected line or the finding highlighted."""

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.resources, self.findings = Resources(id="resources"), Findings(id="findings")
        self.detail = Detail(id="detail")

    def compose(self) -> ComposeResult:
        yield self.resources
        yield self.findings
        yield self.detail

    def show(self, result: ExploreResult, before: ExploreResult | None) -> None:
        """A variant's figures and findings. Its stages before the binary: a note in the figures' place,
        and the findings of the variant before kept until explain's come with the SASS (a list drawn
        anew costs as much as a pane)."""
        resources = self.resources
        if result.early:
            resources.show((), "registers, spills, shared memory and occupancy: ptxas is making the binary…")
        else:
            resources.show(tuple(contents.resources(result, before)))
            if result.unread is None:
                self.findings.show(result.explained.findings)

    @on(OptionList.OptionHighlighted, "#findings")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        findings = self.findings.findings
        if event.option.id is not None and int(event.option.id) < len(findings):
            f = findings[int(event.option.id)]
            said = f"{f.message}" + (f"\ntry: {f.suggestion}" if f.suggestion else "") + f"\nevidence: {f.evidence}"
            self.detail.said = said
