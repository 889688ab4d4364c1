"""Reads MLIR source locations (TTIR, TTGIR): which Python lines each op came from.

Triton prints an op's location as a trailing `loc(...)`, usually an alias `loc(#loc12)`
defined at the end of the module (`#loc12 = loc("k.py":7:17)`). Locations nest:
named `loc("x"(#loc3))`, fused `loc(fused[#loc1, #loc2])` and call sites
`loc(callsite(#loc7 at #loc27))`, which Triton writes for code inlined from a helper;
a call site maps to the helper's line and to the line that called it.
"""

from __future__ import annotations

import re

SourceLine = tuple[str, int]

_TOKEN = re.compile(
    r'\s*(?:(?P<string>"(?:\\.|[^"\\])*")|(?P<alias>#loc\w*)|(?P<int>\d+)|(?P<word>[A-Za-z_]\w*)|(?P<punct>[()\[\]<>,:]))'
)
_ALIAS_DEFINITION = re.compile(r"^(#loc\w*)\s*=\s*loc\((.*)\)\s*$")
_LOC_START = re.compile(r"(?<![\w#])loc\(")


class LocationError(ValueError):
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


def last_location(line: str) -> str | None:
    """The inside of the last top-level `loc(...)` on a line: the op's own location."""
    starts = [m.end() for m in _LOC_START.finditer(line)]
    for start in reversed(starts):
        inside = _balanced(line, start)
        if inside is not None:
            return inside
    return None


def without_locations(line: str) -> str:
    """The line without any ` loc(...)`."""
    if "loc(" not in line:
        return line
    out, position = [], 0
    for match in _LOC_START.finditer(line):
        if match.start() < position:
            continue
        inside = _balanced(line, match.end())
        if inside is None:
            continue
        start = match.start()
        while start > position and line[start - 1] == " ":
            start -= 1
        out.append(line[position:start])
        position = match.end() + len(inside) + 1
    out.append(line[position:])
    return "".join(out)


def is_alias_definition(line: str) -> bool:
    return bool(_ALIAS_DEFINITION.match(line.strip()))


def _balanced(text: str, start: int) -> str | None:
    """text[start:end] where text[end] is the `)` closing the `(` just before start."""
    depth, index, in_string = 1, start, False
    while index < len(text):
        char = text[index]
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return text[start:index]
        index += 1
    return None


class _Resolver:
    def __init__(self, aliases: dict[str, str]):
        self.aliases = aliases
        self.memo: dict[str, tuple[SourceLine, ...]] = {}
        self.active: set[str] = set()

    def resolve_text(self, text: str) -> tuple[SourceLine, ...]:
        tokens = _tokenize(text)
        parser = _Parser(tokens, self)
        found = parser.location()
        if parser.position != len(tokens):
            raise LocationError(f"unexpected {tokens[parser.position][1]!r} in {text!r}")
        return tuple(dict.fromkeys(found))  # unique, in order

    def alias(self, name: str) -> tuple[SourceLine, ...]:
        if name in self.memo:
            return self.memo[name]
        if name not in self.aliases or name in self.active:
            raise LocationError(f"unknown or cyclic location alias {name}")
        self.active.add(name)
        try:
            self.memo[name] = self.resolve_text(self.aliases[name])
        finally:
            self.active.discard(name)
        return self.memo[name]


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    while position < len(text):
        if text[position:].strip() == "":
            break
        match = _TOKEN.match(text, position)
        if not match:
            raise LocationError(f"cannot read {text[position : position + 20]!r}")
        kind = match.lastgroup
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]], resolver: _Resolver):
        self.tokens = tokens
        self.position = 0
        self.resolver = resolver

    def peek(self, offset: int = 0) -> tuple[str, str]:
        index = self.position + offset
        return self.tokens[index] if index < len(self.tokens) else ("end", "")

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        token_kind, token = self.peek()
        if (value is not None and token != value) or (kind is not None and token_kind != kind) or token_kind == "end":
            raise LocationError(f"expected {value or kind}, found {token or 'the end'}")
        self.position += 1
        return token

    def location(self) -> list[SourceLine]:
        kind, token = self.peek()
        if kind == "alias":
            self.position += 1
            return list(self.resolver.alias(token))
        if token == "unknown":
            self.position += 1
            return []
        if token == "loc":
            self.take("loc")
            self.take("(")
            found = self.location()
            self.take(")")
            return found
        if token == "fused":
            return self.fused()
        if token == "callsite":
            self.take("callsite")
            self.take("(")
            callee = self.location()
            self.take("at")
            caller = self.location()
            self.take(")")
            return callee + caller
        if kind == "string":
            return self.file_or_name()
        raise LocationError(f"unexpected {token or 'end'}")

    def fused(self) -> list[SourceLine]:
        self.take("fused")
        if self.peek()[1] == "<":  # fused<metadata>[...]
            depth = 0
            while True:
                token = self.take()
                depth += {"<": 1, ">": -1}.get(token, 0)
                if depth == 0:
                    break
        self.take("[")
        found: list[SourceLine] = []
        while self.peek()[1] != "]":
            found += self.location()
            if self.peek()[1] == ",":
                self.position += 1
        self.take("]")
        return found

    def file_or_name(self) -> list[SourceLine]:
        name = self.take(kind="string")[1:-1]
        if self.peek()[1] == ":":  # "file":line:column, maybe `to line:column`
            self.take(":")
            line = int(self.take(kind="int"))
            self.take(":")
            self.take(kind="int")
            if self.peek()[1] == "to":
                self.take("to")
                if self.peek()[0] == "int":
                    self.take(kind="int")
                self.take(":")
                self.take(kind="int")
            return [(name, line)] if line > 0 else []
        if self.peek()[1] == "(":  # a named location: "x"(inner)
            self.take("(")
            found = self.location()
            self.take(")")
            return found
        return []
