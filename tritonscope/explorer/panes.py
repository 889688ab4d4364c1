"""A code pane: one listing (the Python source, a stage, a pass's IR), highlighted as `dump`
highlights it (render/terminal/code.py's lexers and colours), with a cursor, the lines linked to the
selected Python line, the lines changed against the previous variant and, for the source, explain's
cost per line in the gutter.

Only the rows on screen are drawn (Textual's line API), each from its tokens lexed once, so moving
the cursor redraws a screenful per pane whatever the listing's length.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..render.terminal.code import cells, clean, highlighted
from ..render.terminal.dump import RICH_STYLES

Links = Callable[[int], tuple[int, ...]]


def _none(_: int) -> tuple[int, ...]:
    return ()


@dataclass(frozen=True)
class Content:
    """What a pane shows: numbered lines, their lexer, and how they link to the kernel's Python lines."""

    title: str
    lines: tuple[tuple[int, str], ...]  # (number shown, text)
    lexer: str  # a Pygments alias, as core/stages.py names it
    python_lines: Links = _none  # a line's number -> the kernel-file lines it came from, innermost first
    numbers: Links = _none  # a kernel-file line -> the numbers of the lines that came from it
    changed: frozenset[int] = frozenset()  # numbers of the lines that differ from the previous variant
    gutter: dict[int, tuple[str, int]] = field(default_factory=dict)  # number -> (figures, heat 0-4)
    gutter_width: int = 0


_CODE_STYLES = {code: Style.parse(name) for code, name in RICH_STYLES.items()} | {"1": Style(bold=True), "": Style()}


def code_style(sgr: str) -> Style:
    """A colour of render/terminal/code.py's palette (an SGR code) as a rich Style."""
    return _CODE_STYLES.get(sgr) or Style.parse(RICH_STYLES.get(sgr, "none"))


class CodePane(ScrollView, can_focus=True):
    """One listing with a cursor; moving it posts `Moved` with the Python lines of the line under it."""

    COMPONENT_CLASSES = {
        "code--number",
        "code--linked",
        "code--cursor",
        "code--changed",
        "code--heat-1",
        "code--heat-2",
        "code--heat-3",
        "code--heat-4",
        "code--stale",
    }
    DEFAULT_CSS = """
    CodePane { border: round $panel-lighten-2; border-title-color: $text-muted; scrollbar-size: 0 1; }
    CodePane:focus { border: round $accent; border-title-color: $text; }
    CodePane > .code--number { color: $text-muted; }
    CodePane > .code--linked { background: $primary 40%; }
    CodePane > .code--cursor { background: $accent 45%; }
    CodePane > .code--changed { color: $warning; text-style: bold; }
    CodePane > .code--heat-1 { background: $error 15%; }
    CodePane > .code--heat-2 { background: $error 30%; }
    CodePane > .code--heat-3 { background: $error 50%; }
    CodePane > .code--heat-4 { background: $error 75%; }
    CodePane > .code--stale { color: $text-disabled; }
    """
    BINDINGS = [
        Binding("up,k", "move(-1)", "up", show=False),
        Binding("down,j", "move(1)", "down", show=False),
        Binding("pageup,ctrl+b", "page(-1)", "page up", show=False),
        Binding("pagedown,ctrl+f,space", "page(1)", "page down", show=False),
        Binding("home,g", "ends(0)", "first line", show=False),
        Binding("end,G", "ends(1)", "last line", show=False),
        Binding("left,h", "scroll_left", "left", show=False),
        Binding("right,l", "scroll_right", "right", show=False),
    ]

    class Moved(Message):
        """The cursor moved to a line: the Python lines it came from (the source's own line there)."""

        def __init__(self, pane: CodePane, python_lines: tuple[int, ...]):
            super().__init__()
            self.pane, self.python_lines = pane, python_lines

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.content = Content("", (), "text")
        self.cursor = 0  # a row
        self.linked: frozenset[int] = frozenset()  # numbers of the rows linked to the selected Python line
        self.stale = False
        self._rows: dict[int, int] = {}  # number -> row
        self._numbers: list[int] = []  # each row's number, in order
        self._tokens: dict[int, list[tuple[str, str]]] = {}  # row -> its lexed segments, made when first drawn
        self._lead = 0  # the gutter's columns
        self._number_width = 1

    # --- what it shows ----------------------------------------------------------------------------

    def show(self, content: Content, keep_place: bool = True) -> None:
        """Shows `content`; with `keep_place`, the cursor stays on the same line number (or the nearest)."""
        number = self._numbers[self.cursor] if keep_place and self._numbers else None
        self.content = content
        self._numbers = [n for n, _ in content.lines]
        self._rows = {n: row for row, n in enumerate(self._numbers)}
        self._tokens = {}
        if content.lexer == "python":  # lexed whole: its strings span lines
            self._tokens = dict(enumerate(highlighted([clean(t) for _, t in content.lines], "python")))
        width = max((cells(clean(t)) for _, t in content.lines), default=0)
        self._number_width = len(str(max(self._numbers, default=1)))
        self._lead = self._number_width + 2 + (content.gutter_width + 1 if content.gutter_width else 0) + 2
        self.virtual_size = Size(self._lead + width + 1, len(content.lines))
        self.border_title = content.title
        self.cursor = self._nearest(number) if number is not None else 0
        self.refresh()

    def link(self, python_line: int | None, scroll: bool = True) -> None:
        """Highlights the lines that came from `python_line`; with `scroll`, brings the first into view."""
        numbers = self.content.numbers(python_line) if python_line is not None else ()
        self.linked = frozenset(n for n in numbers if n in self._rows)
        if scroll and self.linked:
            rows = sorted(self._rows[n] for n in self.linked)
            top, height = int(self.scroll_y), self.scrollable_content_region.height
            if not any(top <= row < top + height for row in rows):
                self.scroll_to(y=max(rows[0] - height // 3, 0), animate=False)
        self.refresh()

    def go_to_number(self, number: int) -> bool:
        """Moves the cursor to the line numbered `number` (or the next one after it)."""
        if not self._numbers or number > self._numbers[-1]:
            return False
        self._move_to(bisect.bisect_left(self._numbers, number))
        return True

    def find(self, text: str, forward: bool = True) -> bool:
        """Moves the cursor to the next line holding `text` (any case), wrapping around."""
        wanted = text.lower()
        count = len(self._numbers)
        for step in range(1, count + 1):
            row = (self.cursor + (step if forward else -step)) % count
            if wanted in self.content.lines[row][1].lower():
                self._move_to(row)
                return True
        return False

    @property
    def number(self) -> int | None:
        """The number of the line under the cursor."""
        return self._numbers[self.cursor] if self._numbers else None

    def row_text(self, row: int) -> str:
        """What row `row` shows, as plain text (tests and the terminal test read panes this way)."""
        return "".join(segment.text for segment in self._strip(row, self.size.width or 200))

    def visible_rows(self) -> range:
        top = int(self.scroll_y)
        return range(top, min(top + self.scrollable_content_region.height, len(self._numbers)))

    # --- the keys and the mouse -------------------------------------------------------------------

    def action_move(self, by: int) -> None:
        self._move_to(self.cursor + by)

    def action_page(self, by: int) -> None:
        self._move_to(self.cursor + by * max(self.scrollable_content_region.height - 1, 1))

    def action_ends(self, end: int) -> None:
        self._move_to(len(self._numbers) - 1 if end else 0)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self._move_to(int(self.scroll_y) + offset.y)

    def _move_to(self, row: int) -> None:
        if not self._numbers:
            return
        self.cursor = min(max(row, 0), len(self._numbers) - 1)
        top, height = int(self.scroll_y), self.scrollable_content_region.height
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False)
        self.refresh()
        self.post_message(self.Moved(self, self.content.python_lines(self._numbers[self.cursor])))

    def _nearest(self, number: int) -> int:
        return min(bisect.bisect_left(self._numbers, number), max(len(self._numbers) - 1, 0))

    # --- drawing ----------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        row = int(self.scroll_y) + y
        width = self.scrollable_content_region.width
        if row >= len(self._numbers):
            return Strip.blank(width, self.rich_style)
        return self._strip(row, width)

    def _strip(self, row: int, width: int) -> Strip:
        number = self._numbers[row]
        base = self.rich_style
        background = self._background(row, number)
        lead = Strip(self._gutter(number), self._lead)
        code = Strip(self._code(row), None).crop(int(self.scroll_x), int(self.scroll_x) + max(width - self._lead, 0))
        strip = Strip.join([lead, code]).extend_cell_length(width).crop(0, width)
        return strip.apply_style(base + background) if background else strip.apply_style(base)

    def _background(self, row: int, number: int) -> Style | None:
        if row == self.cursor and self.has_focus:
            return Style(bgcolor=self.get_component_rich_style("code--cursor").bgcolor)
        if number in self.linked:
            return Style(bgcolor=self.get_component_rich_style("code--linked").bgcolor)
        return None

    def _gutter(self, number: int) -> list[Segment]:
        numbers = Style(color=self.get_component_rich_style("code--number").color)
        changed = number in self.content.changed
        mark = Segment("▌" if changed else " ", self.get_component_rich_style("code--changed") if changed else None)
        parts = [Segment(f"{number:>{self._number_width}} ", numbers), mark]
        if self.content.gutter_width:
            figures, heat = self.content.gutter.get(number, ("", 0))
            style = self.get_component_rich_style(f"code--heat-{heat}") if heat else None
            parts.append(Segment(f"{figures:>{self.content.gutter_width}}", style))
            parts.append(Segment(" "))
        parts.append(Segment("│ ", numbers))
        return parts

    def _code(self, row: int) -> list[Segment]:
        tokens = self._tokens.get(row)
        if tokens is None:
            tokens = next(highlighted([clean(self.content.lines[row][1])], self.content.lexer), [])
            self._tokens[row] = tokens
        if self.stale:
            stale = self.get_component_rich_style("code--stale")
            return [Segment(text, stale) for _, text in tokens]
        return [Segment(text, code_style(sgr)) for sgr, text in tokens]
