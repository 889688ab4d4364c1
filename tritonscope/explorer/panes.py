"""A code pane: one listing (the Python source, a stage, a pass's IR), highlighted as `dump`
highlights it (render/terminal/code.py's lexers and colours), with a cursor, the lines linked to the
selected Python line, the lines changed against the previous variant and, for the source, explain's
cost per line in the gutter.

Only the rows on screen are drawn (Textual's line API), each from its tokens lexed once
(listing.py), so moving the cursor redraws a screenful per pane whatever the listing's length. A
long listing is lexed in a thread once it is on screen; a listing shown again (a variant from
memory, the kernel's file) keeps its lexed rows. A new listing repaints its pane alone: its length
is not a layout's business (the pane's size is the screen's), so no layout pass draws every pane.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import replace

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..core.stages import Stage
from ..render.lexers import lexer_for
from .listing import AHEAD, LEXED, Content, Tokens, code_style, lexed_rows, row_tokens, width_of


def make_lexers() -> None:
    """Makes each lexer a pane may use once (Pygments compiles a lexer's rules at its first instance,
    0.1 s for Python's): `explore` calls it while its child compiles the first variant."""
    for alias in {"python", *(stage.lexer for stage in Stage)}:
        lexer_for(alias)


def _gutter(content: Content, number: int, number_width: int, style: Callable[[str], Style]) -> list[Segment]:
    """A row's gutter: its number, `▌` where it changed, its figures (shaded by their heat)."""
    numbers = style("number")
    parts = [Segment(f"{number:>{number_width}} ", numbers)]
    parts.append(Segment("▌", style("changed")) if number in content.changed else Segment(" "))
    if content.gutter_width:
        figures, heat = content.gutter.get(number, ("", 0))
        parts.append(Segment(f"{figures:>{content.gutter_width}}", style(f"heat-{heat}") if heat else None))
        parts.append(Segment(" "))
    parts.append(Segment("│ ", numbers))
    return parts


class CodePane(ScrollView, can_focus=True):
    """One listing with a cursor; moving it posts `Moved` with the Python lines of the line under it.
    Its look is in explorer.tcss (the component classes below)."""

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
        "code--thumb",
    }
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
    # The last good stages of a variant whose compile failed, greyed (each row drawn again)
    stale = reactive(False)

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
        self._rows: dict[int, int] = {}  # number -> row
        self._numbers: list[int] = []  # each row's number, in order
        self._tokens: Tokens = {}  # row -> its lexed segments, made when first drawn
        self._lead = 0  # the gutter's columns
        self._styles: dict[str, Style] = {}
        self._drawn: dict[tuple, Strip] = {}  # rows drawn, by what decides their look
        self._area: tuple[Size, int, int] | None = None  # for its size: the rows' width and height, once read
        self._number_width = 1

    # --- what it shows ----------------------------------------------------------------------------

    def show(self, content: Content, keep_place: bool = True) -> None:
        """Shows `content`; with `keep_place`, the cursor stays on the same line number (or the nearest).
        Content that looks as what is shown (a stage a variant's next stages so far hold again) is taken
        without drawing the pane again."""
        if keep_place and content == self.content:
            self.content = content  # its links: the newer result's
            return
        number = self._numbers[self.cursor] if keep_place and self._numbers else None
        self.content = content
        self._numbers = [n for n, _ in content.lines]
        self._rows = {n: row for row, n in enumerate(self._numbers)}
        self._drawn, self._area = {}, None
        self._tokens, lexed_before = lexed_rows(content)
        width = max((width_of(text) for _, text in content.lines), default=0)
        self._number_width = len(str(max(self._numbers, default=1)))
        self._lead = self._number_width + 2 + (content.gutter_width + 1 if content.gutter_width else 0) + 2
        # Not Textual's reactive set, which asks for a layout of the whole screen: the pane's size is
        # the screen's, and its scroll offsets are bounded by the new size below
        self.set_reactive(CodePane.virtual_size, Size(self._lead + width + 1, len(content.lines)))
        self.scroll_x, self.scroll_y = self.validate_scroll_x(self.scroll_x), self.validate_scroll_y(self.scroll_y)
        self.border_title = content.title
        self.cursor = self._nearest(number) if number is not None else 0
        self.refresh()
        if not lexed_before and content.lexer != "python" and len(content.lines) > LEXED:
            # after the screen is drawn, which it would otherwise share the interpreter with
            self.call_after_refresh(AHEAD.put, self, self._tokens, content)

    def shows(self, tokens: Tokens) -> bool:
        """Whether the pane still shows the listing lexed into `tokens` (the thread lexing ahead asks)."""
        return self._tokens is tokens

    def link(self, python_line: int | None, scroll: bool = True) -> None:
        """Highlights the lines that came from `python_line`; with `scroll`, brings the first into view
        and puts the cursor on it: a key in this pane then moves on from there, not from where the
        cursor was left (its first line, scrolled far out of view)."""
        numbers = self.content.numbers(python_line) if python_line is not None else ()
        linked = frozenset(n for n in numbers if n in self._rows)
        was, self.linked = self.linked, linked
        cursor = self.cursor
        if scroll and linked:
            self.cursor = min(self._rows[n] for n in linked)
        if scroll and linked and not self.scrollable_content_region.height:  # not laid out yet
            self.call_after_refresh(self._linked_into_view)
        elif scroll and self._linked_into_view():
            return  # a scroll draws every row
        self._refresh_rows({*(self._rows[n] for n in was ^ linked if n in self._rows), cursor, self.cursor})

    def mark(self, changed: frozenset[int]) -> None:
        """Marks the lines that differ from the variant before (`▌`): their rows drawn again."""
        was = self.content.changed
        if changed != was:
            self.content = replace(self.content, changed=changed)
            self._refresh_rows(self._rows[n] for n in was ^ changed if n in self._rows)

    def _linked_into_view(self) -> bool:
        return self._into_view(sorted(self._rows[n] for n in self.linked if n in self._rows))

    def _cursor_into_view(self) -> bool:
        return self._into_view([self.cursor])

    def _into_view(self, rows: list[int]) -> bool:
        """Scrolls the first of `rows` a third down the pane where none of them is in view; whether it
        scrolled (not before the pane is laid out)."""
        top, height = int(self.scroll_y), self.scrollable_content_region.height
        if not rows or not height or any(top <= row < top + height for row in rows):
            return False
        # at once, not after the next refresh (Textual's default): a second call before that
        # refresh (a result's follow-up redrawing the panes) reads `scroll_y` as it is now. Forced:
        # after a listing of no rows (a placeholder while ptxas ran) Textual allows no vertical scroll
        # until the next layout, which `show` does not ask for
        self.scroll_to(y=max(rows[0] - height // 3, 0), animate=False, immediate=True, force=True)
        return True

    def _refresh_rows(self, rows) -> None:
        """Draws again only the rows given that are on screen (a cursor move changes a few rows of a pane)."""
        top, height, width = int(self.scroll_y), self.scrollable_content_region.height, self.size.width
        for row in rows:
            if top <= row < top + height:
                self.refresh(Region(0, row - top, width, 1))

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

    def row_text(self, row: int, width: int | None = None) -> str:
        """What row `row` shows (in `width` columns: the pane's own by default), as plain text."""
        return "".join(segment.text for segment in self._strip(row, width or self.size.width or 200, ""))

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
        total, height = len(self._numbers), self.scrollable_content_region.height
        if offset is not None and offset.x >= self._sizes()[0] - 1 and total > height > 0:  # the thumb's column
            self.scroll_to(y=max(offset.y * total // height - height // 2, 0), animate=False, immediate=True)
        elif offset is not None:
            self._move_to(int(self.scroll_y) + offset.y)

    def _move_to(self, row: int) -> None:
        if not self._numbers:
            return
        was, self.cursor = self.cursor, min(max(row, 0), len(self._numbers) - 1)
        top, height = int(self.scroll_y), self.scrollable_content_region.height
        if not height:  # not laid out yet (the first screen): scrolled once it is
            self.call_after_refresh(self._cursor_into_view)
        elif not top <= self.cursor < top + height:
            below = self.cursor >= top + height  # the cursor on the last row, else the first
            self.scroll_to(
                y=self.cursor - height + 1 if below else self.cursor, animate=False, immediate=True, force=True
            )
        else:
            self._refresh_rows((was, self.cursor))
        self.post_message(self.Moved(self, self.content.python_lines(self._numbers[self.cursor])))

    def _nearest(self, number: int) -> int:
        return min(bisect.bisect_left(self._numbers, number), max(len(self._numbers) - 1, 0))

    # --- drawing ----------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        row = int(self.scroll_y) + y
        width = self._sizes()[0]
        if row >= len(self._numbers):
            return Strip.blank(width, self._style("base"))
        kind = (
            "cursor" if row == self.cursor and self.has_focus else "linked" if self._numbers[row] in self.linked else ""
        )
        thumb = self._thumb(y)
        key = (row, kind, int(self.scroll_x), width, self.stale, self._numbers[row] in self.content.changed, thumb)
        strip = self._drawn.get(key)
        if strip is None:
            if len(self._drawn) > 20_000:  # a long session's scrolling: drawn again when seen again
                self._drawn.clear()
            strip = self._drawn[key] = self._strip(row, width, kind, thumb)
        return strip

    def _thumb(self, y: int) -> bool:
        """Whether the pane's row `y` shows the scroll thumb in its last column. The pane draws its own:
        Textual's scrollbars, widgets of their own, took a third of the time to draw a new variant."""
        total, height = len(self._numbers), self._sizes()[1]
        if total <= height or height <= 0:
            return False
        top = int(self.scroll_y)
        start = top * height // total
        return start <= y < max(start + 1, -(-(top + height) * height // total))

    def notify_style_update(self) -> None:
        """The theme (or the focus) changed: every row is drawn again in its colours."""
        super().notify_style_update()
        self._styles, self._drawn, self._area = {}, {}, None

    def on_resize(self) -> None:
        self._area, self._drawn = None, {}
        self.refresh()  # rows drawn before this event came (a layout draws at once) had the old width
        # a pane that grew or shrank (another pane shown or hidden, the error pane, the terminal)
        # keeps what it points at in view: the lines linked to the selected Python line, or its cursor
        if self.linked and not self.has_focus:
            self._linked_into_view()
        else:
            self._cursor_into_view()

    def _sizes(self) -> tuple[int, int]:
        """The region the rows are drawn in (width, height), read once per size: Textual works it out
        from the widget's styles at each ask, and a frame asks it for every row of every pane. A
        layout draws a pane resized before its Resize event comes: the size is checked each time."""
        if self._area is None or self._area[0] != self.outer_size:  # its size as laid out (no styles read)
            region = self.scrollable_content_region
            self._area = (self.outer_size, region.width, region.height)
        return self._area[1], self._area[2]

    def _style(self, name: str) -> Style:
        """The style of a part (its CSS component class), read once per theme."""
        if name not in self._styles:
            if name == "base":
                self._styles[name] = self.rich_style
            elif name in ("cursor", "linked"):
                self._styles[name] = Style(bgcolor=self.get_component_rich_style(f"code--{name}").bgcolor)
            elif name == "number":
                self._styles[name] = Style(color=self.get_component_rich_style("code--number").color)
            else:
                self._styles[name] = self.get_component_rich_style(f"code--{name}", partial=True)
        return self._styles[name]

    def _strip(self, row: int, width: int, kind: str, thumb: bool = False) -> Strip:
        """A row as one Strip (a new variant draws every row of every pane; a Strip costs seven caches),
        its last column the scroll thumb's."""
        base = self._style("base") + self._style(kind) if kind else self._style("base")
        segments = _gutter(self.content, self._numbers[row], self._number_width, self._style)
        room, start = width - 1 - self._lead, int(self.scroll_x)
        code = self._code(row)
        used = sum(cell_len(segment.text) for segment in code)
        if room < 0 or start or used > room:  # scrolled sideways, or wider than the pane: cut to fit
            cut = Strip(code).crop(start, start + max(room, 0))
            joined = Strip.join([Strip(segments, self._lead), cut]).extend_cell_length(width - 1)
            segments = list(joined.crop(0, max(width - 1, 0)))
        else:
            segments += code
            if used < room:
                segments.append(Segment(" " * (room - used)))
        if width > 0:
            segments.append(Segment("▐", self._style("thumb")) if thumb else Segment(" "))
        return Strip(Segment.apply_style(segments, base), width)

    def _code(self, row: int) -> list[Segment]:
        tokens = row_tokens(self._tokens, self.content, row)
        if self.stale:
            stale = self._style("stale")
            return [Segment(text, stale) for _, text in tokens]
        return [Segment(text, code_style(sgr)) for sgr, text in tokens]
