"""Reads MLIR source locations (TTIR, TTGIR): which Python lines each op came from.

Triton prints an op's location as a trailing `loc(...)`, usually an alias `loc(#loc12)`
defined at the end of the module (`#loc12 = loc("k.py":7:17)`). Locations nest:
named `loc("x"(#loc3))`, fused `loc(fused[#loc1, #loc2])` and call sites
`loc(callsite(#loc7 at #loc27))`, which Triton writes for code inlined from a helper;
a call site maps to the helper's line and to the line that called it.

Everything here reads a line once, left to right, and keeps its nesting on explicit stacks:
no recursion (aliases nest thousands deep in hostile input), no backtracking regex.
"""

from __future__ import annotations

import re

from .asm_loc import unescaped_hex
from .errors import ParseError

SourceLine = tuple[str, int]

_TOKEN = re.compile(
    r'\s*(?:(?P<string>"(?:\\.|[^"\\])*")|(?P<alias>#loc\w*)|(?P<int>\d+)|(?P<word>[A-Za-z_]\w*)|(?P<punct>[()\[\]<>,:]))'
)
_ALIAS_DEFINITION = re.compile(r"^(#loc\w*)\s*=\s*loc\((.*)\)\s*$")
# What matters to parentheses on a line: string literals (maybe unclosed), `loc(`, `(` and `)`.
_PAREN_SCAN = re.compile(r'"(?:\\.|[^"\\])*"?|(?<![\w#])loc\(|[()]')
_MAX_DIGITS = 18  # a longer line number is not one (and int() refuses over 4300 digits)


class LocationError(ParseError):
    """Text that is not a location this parser understands."""


def parse(text: str) -> dict[int, tuple[SourceLine, ...]]:
    """For each 1-based line holding an op, the Python lines its location names (aliases resolved)."""
    lines = text.splitlines()
    aliases = {}
    for line in lines:
        match = _ALIAS_DEFINITION.match(line.strip())
        if match:
            aliases[match.group(1)] = match.group(2)
    resolver = _Resolver(aliases)
    result: dict[int, tuple[SourceLine, ...]] = {}
    for number, line in enumerate(lines, start=1):
        if _ALIAS_DEFINITION.match(line.strip()):
            continue
        location = last_location(line)
        if location is None:
            continue
        try:
            found = resolver.resolve_text(location)
        except LocationError:
            continue  # an odd location costs that line its mapping, nothing more
        if found:
            result[number] = found
    return result


def resolve_location(location: str) -> tuple[SourceLine, ...]:
    """The Python lines the inside of one `loc(...)` names, e.g. `callsite("k.py":9:3 at "k.py":17:8)`,
    with no aliases (as MLIR's diagnostics print them). Raises LocationError for anything else."""
    return _Resolver({}).resolve_text(location)


def last_location(line: str) -> str | None:
    """The inside of the last top-level `loc(...)` on a line (outside string literals): the op's own location."""
    spans = _location_spans(line)
    if not spans:
        return None
    start, end = spans[-1]
    return line[start + len("loc(") : end]


def without_locations(line: str) -> str:
    """The line without any ` loc(...)`; string literals are left as they are."""
    if "loc(" not in line:
        return line
    out, position = [], 0
    for start, end in _location_spans(line):
        cut = start
        while cut > position and line[cut - 1] == " ":
            cut -= 1
        out.append(line[position:cut])
        position = end + 1
    out.append(line[position:])
    return "".join(out)


def is_alias_definition(line: str) -> bool:
    return bool(_ALIAS_DEFINITION.match(line.strip()))


def _location_spans(line: str) -> list[tuple[int, int]]:
    """(index of `loc(`, index of its `)`) of each top-level, closed `loc(...)` outside string literals, in order."""
    alone = _trailing_location(line)
    return alone if alone is not None else _scanned_spans(line)


def _scanned_spans(line: str) -> list[tuple[int, int]]:
    """`_location_spans` by a scan of every parenthesis and string literal of the line."""
    spans: list[tuple[int, int]] = []
    opened: list[int] = []  # per open parenthesis: where its `loc(` starts, or -1 for a plain `(`
    for match in _PAREN_SCAN.finditer(line):
        token = match.group()
        if token == "(":
            opened.append(-1)
        elif token == ")":
            start = opened.pop() if opened else -1
            if start >= 0:
                while spans and spans[-1][0] > start:  # closed inside this one: not top-level
                    spans.pop()
                spans.append((start, match.start()))
        elif token == "loc(":
            opened.append(match.start())
    return spans


def _trailing_location(line: str) -> list[tuple[int, int]] | None:
    """The span of the usual op line's one location, ` loc(#loc12)` at its end, found without the
    scan (a pass dump holds tens of thousands of such lines); None for any other line."""
    start = line.rfind(" loc(") + 1
    if not start or not line.endswith(")") or line.count("loc(") != 1:
        return None
    inside = line[start + 4 : -1]
    if "(" in inside or ")" in inside or '"' in inside:
        return None
    head = line[:start]
    if '"' in head and (head.count('"') % 2 or "\\" in head):  # the `loc(` may sit inside a string
        return None
    return [(start, len(line) - 1)]


class _Resolver:
    """Resolves location texts, with `#loc` aliases expanded once each (memoized, cycles refused)."""

    def __init__(self, aliases: dict[str, str]):
        self.aliases = aliases
        self.memo: dict[str, tuple[SourceLine, ...] | LocationError] = {}

    def resolve_text(self, text: str) -> tuple[SourceLine, ...]:
        return self._expand(_items(text))

    def alias(self, name: str) -> tuple[SourceLine, ...]:
        if name not in self.memo:
            self._resolve_graph(name)
        found = self.memo[name]
        if isinstance(found, LocationError):
            raise found
        return found

    def _expand(self, items: list) -> tuple[SourceLine, ...]:
        found: list[SourceLine] = []
        expanded: set[str] = set()  # an alias met again adds nothing new
        for item in items:
            if not isinstance(item, str):
                found.append(item)
            elif item not in expanded:
                expanded.add(item)
                found.extend(self.alias(item))
        return tuple(dict.fromkeys(found))  # unique, in order

    def _resolve_graph(self, root: str) -> None:
        """Memoizes `root` and every alias it reaches, children first, with an explicit stack."""
        pending: dict[str, list] = {}  # aliases being resolved (on the stack): their items
        stack = [root]
        while stack:
            name = stack[-1]
            if name in self.memo:
                stack.pop()
            elif name in pending:  # its children are all done
                stack.pop()
                items = pending.pop(name)
                failed = [self.memo[i] for i in items if isinstance(i, str) and isinstance(self.memo[i], LocationError)]
                self.memo[name] = failed[0] if failed else self._expand(items)
            elif name not in self.aliases:
                self.memo[name] = LocationError(f"unknown location alias {name}")
            else:
                try:
                    items = _items(self.aliases[name])
                except LocationError as exc:
                    self.memo[name] = exc
                    continue
                children = [i for i in items if isinstance(i, str) and i not in self.memo]
                if name in children or any(child in pending for child in children):  # it reaches itself
                    self.memo[name] = LocationError(f"cyclic location alias {name}")
                    continue
                pending[name] = items
                stack.extend(reversed(children))


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match:
            if text[position:].isspace():
                break
            raise LocationError(f"cannot read {text[position : position + 20]!r}")
        kind = match.lastgroup
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


def _items(text: str) -> list[SourceLine | str]:
    """The `file:line` leaves and `#loc` alias names of one location, in order."""
    return _LocationReader(text).read()


class _LocationReader:
    """A pushdown reader: `owed` holds what each enclosing form still expects once the location
    being read is complete (`)` of `loc(` or a name, `at` of a call site, `]` of a fused list)."""

    def __init__(self, text: str):
        self.text, self.tokens, self.position = text, _tokenize(text), 0
        self.items: list[SourceLine | str] = []
        self.owed = ["end"]

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.position] if self.position < len(self.tokens) else ("end", "")

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        token_kind, token = self.peek()
        if (value is not None and token != value) or (kind is not None and token_kind != kind) or token_kind == "end":
            raise LocationError(f"expected {value or kind}, found {token or 'the end'}")
        self.position += 1
        return token

    def read(self) -> list[SourceLine | str]:
        while True:
            if not self._open() and self._settle():
                return self.items

    def _open(self) -> bool:
        """Reads the start of one form; True when a location inside it is to be read next."""
        kind, token = self.peek()
        if kind == "alias":
            self.items.append(self.take())
            return False
        if token == "unknown":
            self.take()
            return False
        if token in ("loc", "callsite"):
            self.take()
            self.take("(")
            self.owed.append(")" if token == "loc" else "at")
            return True
        if token == "fused":
            self.take()
            _skip_metadata(self.take, self.peek)
            self.take("[")
            if self.peek()[1] == "]":
                self.take("]")
                return False
            self.owed.append("]")
            return True
        if kind == "string":
            self.take()
            if self.peek()[1] == "(":  # a named location: "x"(inner)
                self.take("(")
                self.owed.append(")")
                return True
            self.items.extend(_file_line(token, self.take, self.peek))
            return False
        raise LocationError(f"unexpected {token or 'end'}")

    def _settle(self) -> bool:
        """A location is complete: settle what the enclosing forms expect. True at the very end."""
        while True:
            expected = self.owed.pop()
            if expected == "end":
                if self.position != len(self.tokens):
                    raise LocationError(f"unexpected {self.tokens[self.position][1]!r} in {self.text!r}")
                return True
            if expected == ")":
                self.take(")")
            elif expected == "at":  # callee done, the caller follows
                self.take("at")
                self.owed.append(")")
                return False
            elif expected == "]":  # one member of a fused list done
                if self.peek()[1] == ",":
                    self.take()
                if self.peek()[1] != "]":
                    self.owed.append("]")
                    return False
                self.take("]")


def _skip_metadata(take, peek) -> None:
    """Skips the `<...>` of `fused<metadata>[...]`."""
    if peek()[1] != "<":
        return
    depth = 0
    while True:
        depth += {"<": 1, ">": -1}.get(take(), 0)
        if depth == 0:
            return


def _file_line(name: str, take, peek) -> list[SourceLine]:
    """After a string: `:line:column` (maybe `to line:column`) makes it a file location; else a bare name."""
    if peek()[1] != ":":
        return []
    take(":")
    line = take(kind="int")
    take(":")
    take(kind="int")
    if peek()[1] == "to":
        take("to")
        if peek()[0] == "int":
            take(kind="int")
        take(":")
        take(kind="int")
    if len(line) > _MAX_DIGITS:
        raise LocationError(f"line number {line[:20]}... is too large")
    return [(unescaped_hex(name[1:-1]), int(line))] if int(line) > 0 else []
