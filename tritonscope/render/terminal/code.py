"""Highlighted code lines for the terminal, drawn straight from Pygments' tokens, one line at a time.

Long lines are cut at the terminal's width with a visible marker (as `less -S` cuts them), or
folded with `--wrap`. Each row comes out as a finished string (ANSI colours or none), so a
view writes a listing as fast as it is lexed and a pager shows the first screen at once.
"""

from __future__ import annotations

import functools
import re
import textwrap
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pygments.token import Comment, Error, Keyword, Name, Number, Operator, String, Whitespace, _TokenType

from ...core.stages import Listing, Stage
from ..lexers import Layout, Location, lexer_for
from .python_colors import python_segments

CUT = "…"  # ends a line cut at the edge
RESET = "\x1b[0m"
NUMBER_STYLE, GUTTER_STYLE, CUT_STYLE = "2", "36", "1;7"

# Token colours as SGR codes of the 16 ANSI colours: the terminal's own theme decides the shades,
# so they read on light and dark backgrounds alike. The nearest listed parent of a token wins.
PALETTE = {
    Keyword: "35",
    Keyword.Type: "36",
    Keyword.Constant: "35",
    Name.Function: "32",
    Name.Builtin: "32",
    Name.Decorator: "32",
    Name.Class: "32;1",
    Name.Label: "33",
    Layout: "33",
    Name.Attribute: "36",
    Name.Constant: "34",
    Name.Variable.Global: "34",
    Number: "95",
    String: "33",
    Comment: "90",
    Location: "90",
    Operator: "91",
    Operator.Word: "35",
    Error: "",
}


@functools.cache
def sgr(ttype: _TokenType) -> str:
    while ttype not in PALETTE and ttype.parent is not None:
        ttype = ttype.parent
    return PALETTE.get(ttype, "")


@dataclass(frozen=True)
class Code:
    """How listings are drawn: the columns they get, in colour or not, long lines cut or folded."""

    width: int = 80
    color: bool = False
    wrap: bool = False


Segments = list[tuple[str, str]]  # (SGR code, text) of one line, no newline in it


def highlighted(texts: list[str], alias: str, limit: int | None = None) -> Iterator[Segments]:
    """Each line as coloured segments. IR is lexed line by line, each line only as far as `limit`
    characters (what can be seen of it); Python is lexed whole (its strings span lines)."""
    if not texts:
        return
    if alias == "python":  # a kernel's source: the tokenizer, where Pygments' lexer costs 30 ms to make
        lines = python_segments(texts, sgr)
        if lines is not None:
            yield from lines
        else:
            yield from _split_lines(lexer_for(alias).get_tokens_unprocessed("\n".join(texts) + "\n"))
        return
    lexer = lexer_for(alias)
    states = _joined(type(lexer))
    for text in texts:
        line = text if limit is None or len(text) <= limit else text[:limit]
        segments = _lexed(lexer, line + "\n", states)
        style, last = segments[-1]  # the newline, alone or at the end of a run of spaces
        if last == "\n":
            segments.pop()
        else:
            segments[-1] = (style, last.rstrip("\n"))
        yield segments


def _split_lines(stream: Iterable[tuple[int, _TokenType, str]]) -> Iterator[Segments]:
    line: Segments = []
    for _, ttype, value in stream:
        if "\n" not in value:
            line.append((sgr(ttype), value))
            continue
        parts = value.split("\n")
        for part in parts[:-1]:
            if part:
                line.append((sgr(ttype), part))
            yield line
            line = []
        if parts[-1]:
            line.append((sgr(ttype), parts[-1]))
    if line:
        yield line


def clean(text: str) -> str:
    """Tabs expanded and control characters made visible: nothing in a listing moves the cursor."""
    text = text.expandtabs(8) if "\t" in text else text
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == " " else "\ufffd" for ch in text)


def cells(text: str) -> int:
    if text.isascii():
        return len(text)
    return sum(_char_cells(ch) for ch in text)


def _char_cells(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def fitting(text: str, room: int) -> int:
    """How many characters of `text`, from its start, fit in `room` columns."""
    if text.isascii():
        return min(len(text), room)
    used = 0
    for i, ch in enumerate(text):
        used += _char_cells(ch)
        if used > room:
            return i
    return len(text)


def _slice(segments: Segments, start: int, end: int) -> Segments:
    """The characters start:end of a line, in their segments."""
    out, pos = [], 0
    for style, text in segments:
        a, b = max(start, pos), min(end, pos + len(text))
        if a < b:
            out.append((style, text[a - pos : b - pos]))
        pos += len(text)
        if pos >= end:
            break
    return out


def fit(segments: Segments, text: str, room: int, wrap: bool) -> list[tuple[Segments, int]]:
    """A line (`text`, lexed into `segments`) in rows of at most `room` columns: cut before the
    marker, or folded (`wrap`), at a space where one is near the edge."""
    if not wrap:
        end = fitting(text, room - 1)
        return [(_slice(segments, 0, end) + [(CUT_STYLE, CUT)], cells(text[:end]) + 1)]
    rows, start = [], 0
    while start < len(text):
        end = start + max(fitting(text[start:], room), 1)
        if end < len(text):
            end = _break(text, start, start + room // 2, end)
        rows.append((_slice(segments, start, end), cells(text[start:end])))
        start = end
    return rows


def _break(text: str, start: int, low: int, end: int) -> int:
    """Where to fold the row text[start:end]: after its last space, else after punctuation past
    `low`, else at the edge."""
    space = text.rfind(" ", start + 1, end)
    if space > start:
        return space + 1
    best = max(text.rfind(mark, low, end) for mark in ",;<>{}()[]")
    return best + 1 if best >= low else end


def paint(segments: Segments, color: bool) -> str:
    """Segments as one string: SGR codes only where the colour changes, none at all without colour."""
    if not color:
        return "".join(text for _, text in segments)
    out, current = [], ""
    for style, text in segments:
        if style != current:
            out.append(f"\x1b[0;{style}m" if style else RESET)
            current = style
        out.append(text)
    if current:
        out.append(RESET)
    return "".join(out)


def listing_rows(
    lines: Listing, stage: Stage, code: Code, offset: int = 0, gutter: dict[int, str] | None = None
) -> Iterator[tuple[str, int]]:
    """Each line behind its number (and the gutter, if given), as (painted row, its columns)."""
    number_width = len(str(max((n for n, _ in lines), default=1) + offset))
    gutter_width = max((len(gutter.get(n, "")) for n, _ in lines), default=0) if gutter is not None else 0
    lead = number_width + 1 + (gutter_width + 3 if gutter is not None else 0)
    room = max(code.width - lead, 8)
    texts = [clean(text) for _, text in lines]
    template = _prefix("{0}", None if gutter is None else "{1}", code.color)  # painted once, filled per line
    blank = template.format(" " * number_width, " " * gutter_width)
    segments = highlighted(texts, stage.lexer, None if code.wrap else room + 1)
    for (number, _), text, line in zip(lines, texts, segments, strict=True):
        mark = "" if gutter is None else f"{gutter.get(number, ''):>{gutter_width}}"
        prefix = template.format(f"{number + offset:>{number_width}}", mark)
        width = cells(text)
        rows = [(line, width)] if width <= room else fit(line, text, room, code.wrap)
        for i, (row, used) in enumerate(rows):
            yield (prefix if i == 0 else blank) + paint(row, code.color), lead + used


DIFF_STYLES = (("+++", "1"), ("---", "1"), ("@@", "36"), ("+", "32"), ("-", "31"))


def diff_rows(lines: Iterable[str], code: Code, styles: tuple = DIFF_STYLES) -> Iterator[str]:
    """A unified diff, each line coloured by its first characters and folded at the width, the
    rest of a line indented under it (or cut with the marker without `wrap`)."""
    for line in lines:
        text = clean(line)
        style = next((s for start, s in styles if text.startswith(start)), "")
        segments = [(style, text)]
        if cells(text) <= code.width:
            yield paint(segments, code.color)
            continue
        for i, (row, _) in enumerate(fit(segments, text, max(code.width - 2, 8), code.wrap)):
            yield ("  " if i else "") + paint(row, code.color)


def _prefix(number: str, gutter: str | None, color: bool) -> str:
    parts = [(NUMBER_STYLE, number + " ")]
    if gutter is not None:
        parts.append((GUTTER_STYLE, gutter + " │ "))
    return paint(parts, color)


def rule(title: str, width: int, color: bool, style: str = "1;34") -> str:
    """`── title ─────` across the width; a title too long for one line is folded under it."""
    first, *rest = textwrap.wrap(title, max(width - 4, 8)) or [""]
    fill = "─" * max(width - cells(first) - 4, 0)
    lines = [paint([(style, f"── {first} {fill}".rstrip())], color)]
    return "\n".join(lines + [paint([(style, f"   {line}")], color) for line in rest])


def wrapped(
    text: str, width: int, color: bool, style: str = "", indent: int = 4, keep: tuple[str, ...] = ()
) -> list[str]:
    """`folded`, each line painted in `style`."""
    return [paint([(style, line)], color) for line in folded(text, width, indent=indent, keep=keep)]


_KEPT_SPACE = "\ue000"  # a space textwrap does not break at: a private-use character (a path may hold U+00A0)


def folded(text: str, width: int, first: str = "", indent: int = 4, keep: tuple[str, ...] = ()) -> list[str]:
    """Prose folded at spaces to the width, `first` before its first line and its later lines indented;
    words are never cut, only a word longer than a whole line is split over lines, but for a path,
    which is kept whole on a line of its own (it is copied, not read across a break). `keep`: phrases
    not folded at their own spaces (a path with a space in a folder's name)."""
    for phrase in keep:
        text = text.replace(phrase, phrase.replace(" ", _KEPT_SPACE))
    lines = []
    for i, paragraph in enumerate(text.split("\n")):  # its own line breaks stay (a source line, a caret)
        opening = first if i == 0 else " " * indent
        whole = any("/" in word and len(word) > width - indent for word in paragraph.split(" "))
        lines += textwrap.wrap(
            paragraph,
            max(width, 16),
            initial_indent=opening,
            subsequent_indent=" " * indent,
            break_on_hyphens=False,
            break_long_words=not whole,
        ) or [""]
    return [line.replace(_KEPT_SPACE, " ") for line in lines] if keep else lines


def pad(row: str, used: int, width: int) -> str:
    return row + " " * max(width - used, 0)


# --- a faster Pygments engine --------------------------------------------------------------------
# RegexLexer tries each rule of a state in turn, a Python call per rule. Joining a state's rules
# into one alternation (`re` tries them in the same order, first match wins) gives the same tokens
# for a fraction of the time. Lexers whose rules cannot be joined run as Pygments runs them.


def _lexed(lexer, text: str, states: dict | None) -> Segments:
    """`text` as (SGR code, text) segments, one per token, as Pygments' own loop would lex it."""
    if states is None:
        return [(sgr(ttype), value) for _, ttype, value in lexer.get_tokens_unprocessed(text)]
    return _run(lexer, text, states)


@functools.cache
def _joined(lexer_class) -> dict | None:
    from pygments.lexer import RegexLexer

    if not issubclass(lexer_class, RegexLexer) or lexer_class.get_tokens_unprocessed is not (
        RegexLexer.get_tokens_unprocessed
    ):
        return None
    states = {}
    for state, rules in lexer_class._tokens.items():  # made when the lexer was first instantiated
        parts = []
        for i, (match, _, _) in enumerate(rules):
            pattern = _scoped(match.__self__.pattern)
            if pattern is None:
                return None
            parts.append(f"(?P<_{i}>{pattern})")
        joined = re.compile("|".join(parts), lexer_class.flags)
        by_group: list[tuple | None] = [None] * (
            joined.groups + 1
        )  # m.lastindex (the outer group that matched) -> its rule
        for name, index in joined.groupindex.items():  # each rule with its token's colour, where it names one
            rex, action, new_state = rules[int(name[1:])]
            by_group[index] = (rex, action, new_state, sgr(action) if type(action) is _TokenType else None)
        states[state] = (joined.match, by_group)
    return states


def _scoped(pattern: str) -> str | None:
    """A rule's pattern made safe inside an alternation; None where it cannot be (back-references)."""
    flags = re.match(r"\(\?([aiLmsux]+)\)", pattern)
    if flags:
        pattern = f"(?{flags.group(1)}:{pattern[flags.end() :]})"
    if re.search(r"\\[1-9]|\(\?P=|\(\?[aiLmsux]+\)", pattern):
        return None
    return pattern


def _run(lexer, text: str, states: dict) -> Segments:
    """Pygments' RegexLexer loop (same states, same tokens) over the joined patterns, each token
    appended as its segment straight away: no token tuples, one colour look-up per rule."""
    out: Segments = []
    append = out.append
    pos, end, stack = 0, len(text), ["root"]
    match, rules = states["root"]
    while pos < end:
        m = match(text, pos)
        if m is None:
            if text[pos] == "\n":
                stack = ["root"]
                match, rules = states["root"]
                append((sgr(Whitespace), "\n"))
            else:
                append((sgr(Error), text[pos]))
            pos += 1
            continue
        rex, action, new_state, style = rules[m.lastindex]
        stop = m.end()
        if style is not None:
            append((style, text[pos:stop]))
        elif action is not None:
            out += [(sgr(ttype), value) for _, ttype, value in action(lexer, rex(text, pos))]
        pos = stop
        if new_state is not None:
            _move(stack, new_state)
            match, rules = states[stack[-1]]
    return out


def _move(stack: list[str], new_state) -> None:
    if isinstance(new_state, int):  # pop that many, keeping the root
        del stack[1 if abs(new_state) >= len(stack) else new_state :]
        return
    for state in new_state if isinstance(new_state, tuple) else (new_state,):
        if state == "#pop":
            if len(stack) > 1:
                stack.pop()
        elif state == "#push":
            stack.append(stack[-1])
        else:
            stack.append(state)
