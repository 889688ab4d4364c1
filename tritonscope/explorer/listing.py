"""What a code pane shows (`Content`: numbered lines, their lexer, how they link to the kernel's
Python lines, the lines changed, the gutter) and its rows lexed: each listing's rows lexed once, by
blocks, shared by every pane that shows it, long listings lexed ahead in one thread. Textual-free:
the pane (panes.py) draws what is made here.
"""

from __future__ import annotations

import gc
import queue
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from rich.style import Style

from ..render.terminal.code import cells, clean, highlighted
from ..render.terminal.dump import RICH_STYLES

Links = Callable[[int], tuple[int, ...]]
Tokens = dict[int, list[tuple[str, str]]]  # row -> its lexed segments (an SGR code, the text)
LEXED = 64  # rows lexed at once, when the first of them is drawn
LISTINGS_KEPT = 16  # listings whose lexed rows are kept: four panes of four variants


def _none(_: int) -> tuple[int, ...]:
    return ()


@dataclass(frozen=True)
class Content:
    """What a pane shows: numbered lines, their lexer, and how they link to the kernel's Python lines."""

    title: str
    lines: tuple[tuple[int, str], ...]  # (number shown, text)
    lexer: str  # a Pygments alias, as core/stages.py names it
    # how it links (left out of ==: a variant's next stages so far link anew, and look the same)
    python_lines: Links = field(default=_none, compare=False)  # a number -> the kernel-file lines it came from
    numbers: Links = field(default=_none, compare=False)  # a kernel-file line -> the numbers that came from it
    changed: frozenset[int] = frozenset()  # numbers of the lines that differ from the previous variant
    gutter: dict[int, tuple[str, int]] = field(default_factory=dict)  # number -> (figures, heat 0-4)
    gutter_width: int = 0


_CODE_STYLES = {code: Style.parse(name) for code, name in RICH_STYLES.items()} | {"1": Style(bold=True), "": Style()}


def code_style(sgr: str) -> Style:
    """A colour of render/terminal/code.py's palette (an SGR code) as a rich Style."""
    return _CODE_STYLES.get(sgr) or Style.parse(RICH_STYLES.get(sgr, "none"))


def width_of(text: str) -> int:
    """The columns a line takes, with the fast answer for plain ASCII (thousands of lines a variant)."""
    return len(text) if text.isascii() and text.isprintable() else cells(clean(text))


_LEXED: OrderedDict[tuple[str, tuple], Tokens] = OrderedDict()


def lexed_rows(content: Content) -> tuple[Tokens, bool]:
    """The rows of `content` lexed so far, shared by every pane that shows the same listing, and
    whether it was shown before: the kernel's file for each of its variants, a variant's stages
    when it comes back from memory. The Python source is lexed whole (its strings span lines)."""
    key = (content.lexer, content.lines)
    if key in _LEXED:
        _LEXED.move_to_end(key)
        return _LEXED[key], True
    rows: Tokens = {}
    _LEXED[key] = rows
    while len(_LEXED) > LISTINGS_KEPT:
        _LEXED.popitem(last=False)
    if content.lexer == "python":
        rows.update(enumerate(highlighted([clean(t) for _, t in content.lines], "python")))
    return rows, False


def lex_block(tokens: Tokens, content: Content, first: int) -> None:
    """Lexes rows `first` to `first + LEXED` of `content` into `tokens` (one lexer for a block of rows)."""
    block = content.lines[first : first + LEXED]
    for at, lexed in enumerate(highlighted([clean(text) for _, text in block], content.lexer), first):
        tokens.setdefault(at, lexed)


def row_tokens(tokens: Tokens, content: Content, row: int) -> list[tuple[str, str]]:
    """Row `row`'s segments, its block lexed now where the thread lexing ahead has not yet."""
    found = tokens.get(row)
    if found is None:
        lex_block(tokens, content, row - row % LEXED)
        found = tokens[row]
    return found


class Lexed(Protocol):
    """A pane as the thread lexing ahead sees it: where its cursor is, and which rows it shows."""

    cursor: int

    def shows(self, tokens: Tokens) -> bool: ...


def lex_ahead(pane: Lexed, tokens: Tokens, content: Content) -> None:
    """Every block of a long listing lexed before it is drawn, from the cursor's on: a move that
    scrolls three panes to lines not seen yet then draws them without lexing them (a block of LLVM
    IR takes a millisecond or two). It stops when the pane shows another listing."""
    start = pane.cursor - pane.cursor % LEXED
    for first in [*range(start, len(content.lines), LEXED), *range(0, start, LEXED)]:
        if not pane.shows(tokens):
            return
        if first not in tokens:
            lex_block(tokens, content, first)
    gc.freeze()  # the rows lexed live as long as the listing: kept out of the collector's full passes


class LexingAhead:
    """One thread that lexes long listings ahead of their drawing, one listing after the other: a
    thread per pane took the interpreter from the screen three times over when three panes opened
    at once, and the first moves then waited for them."""

    def __init__(self) -> None:
        self._listings: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def put(self, pane: Lexed, tokens: Tokens, content: Content) -> None:
        self._listings.put((pane, tokens, content))
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="lexing ahead", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        try:
            while True:
                lex_ahead(*self._listings.get())
        finally:  # it failed (its error printed): the next listing starts another
            with self._lock:
                self._thread = None


AHEAD = LexingAhead()
