"""Python source as coloured segments, from the standard library's tokenizer.

Pygments' Python lexer compiles over 400 patterns the first time one is made: 25-35 ms, an eighth
of drawing a whole dump, for a kernel's few dozen lines. `tokenize` is loaded already (`inspect`
reads the kernel's source with it), and gives the colours Pygments gives the code kernels hold:
keywords, built-ins, the names `def` and `class` define, decorators, numbers, strings, comments
and operators. f-strings are coloured as strings whole. Source it cannot tokenize (a fragment cut
inside a string) returns None, and is lexed by Pygments as before.
"""

from __future__ import annotations

import builtins
import io
import keyword
import tokenize

from pygments.token import Comment, Keyword, Name, Number, Operator, String, _TokenType  # type: ignore[import-untyped]

Segments = list[tuple[str, str]]

# The names Pygments colours as built-ins: the functions and types of `builtins`, not its
# exceptions, and the pseudo-names it adds.
_BUILTINS = (
    frozenset(
        name
        for name, value in vars(builtins).items()
        if not name.startswith("_") and not (isinstance(value, type) and issubclass(value, BaseException))
    )
    - {"True", "False", "None", "Ellipsis", "NotImplemented", "copyright", "credits", "license", "exit", "quit"}
    - {"help", "anext", "ascii", "exec"}  # not in Pygments' list
) | {"__import__"}
_PSEUDO = frozenset({"self", "cls", "Ellipsis", "NotImplemented"})
_OPERATOR_CHARS = frozenset("-~+/*%=<>&^|.!:@")  # Pygments: !=|==|<<|>>|:=|[-~+/*%=<>&^|.], and @
_CONSTANTS = frozenset({"True", "False", "None"})
_OPERATOR_WORDS = frozenset({"in", "is", "and", "or", "not"})
_NAMESPACE = frozenset({"import", "from"})
# The special methods Pygments colours as functions (green); other dunder names stay plain.
_MAGIC_METHODS = frozenset(
    f"__{name}__"
    for name in (
        "abs add aenter aexit aiter and anext await bool bytes call complex contains del delattr delete "
        "delitem dir divmod enter eq exit float floordiv format ge get getattr getattribute getitem gt hash "
        "iadd iand ifloordiv ilshift imatmul imod imul index init instancecheck int invert ior ipow irshift "
        "isub iter itruediv ixor le len length_hint lshift lt matmul missing mod mul ne neg new next or pos "
        "pow prepare radd rand rdivmod repr reversed rfloordiv rlshift rmatmul rmod rmul ror round rpow "
        "rrshift rshift rsub rtruediv rxor set setattr setitem str sub subclasscheck truediv xor"
    ).split()
)


def python_segments(texts: list[str], sgr) -> list[Segments] | None:
    """Each line of `texts` as (SGR code, text) segments, or None where the source cannot be
    tokenized. `sgr` gives a token type's code, as for every other listing."""
    source = "\n".join(texts) + "\n"
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    lines: list[Segments] = [[] for _ in texts]
    row, col = 1, 0  # where the last token ended: what lies between is plain text (spaces)
    previous = ""  # the last token's text, newlines and comments left out
    path = None  # "import" or "from" within an import's module path, which Pygments leaves plain
    fields: list[int] = []  # Python 3.12+: per f-string open, the bracket depth inside its `{...}` field
    for at, token in enumerate(tokens):
        (start_row, start_col), (end_row, end_col) = token.start, token.end
        if token.type in (tokenize.ENDMARKER, tokenize.DEDENT) or start_row > len(texts):
            continue
        gap = sgr(String) if fields and fields[-1] == 0 else ""  # in an f-string's text: `{{` read as `{`
        if (start_row, start_col) > (row, col) and start_row == row:
            lines[row - 1].append((gap, texts[row - 1][col:start_col]))
        elif start_row > row and start_col:  # the gap crosses a line break (a continuation): only its last part is text
            lines[start_row - 1].append((gap, texts[start_row - 1][:start_col]))
        path = _import_path(token, path)
        if _in_field_syntax(token, fields, previous):
            ttype = String
        elif path is not None and token.string not in _NAMESPACE:
            ttype = Keyword if token.string == "as" else Operator if token.string == "," else None
        else:
            ttype = _token_type(token, previous, tokens[at + 1] if at + 1 < len(tokens) else None)
        code = sgr(ttype) if ttype is not None else ""
        if ttype is String and start_row == end_row and _is_fstring(token.string):
            lines[start_row - 1] += _fstring(token.string, code, sgr)
            row, col, previous = end_row, end_col, token.string
            continue
        if start_row == end_row:
            if token.type not in (tokenize.NEWLINE, tokenize.NL):
                lines[start_row - 1].append((code, texts[start_row - 1][start_col:end_col]))
        else:  # a string over several lines: its part on each
            for number in range(start_row, end_row + 1):
                text = texts[number - 1]
                part = text[start_col:] if number == start_row else text[:end_col] if number == end_row else text
                if part:
                    lines[number - 1].append((code, part))
        row, col = end_row, end_col
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT):
            previous = token.string
    for line, text in zip(lines, texts, strict=True):  # trailing spaces the tokenizer skips
        used = sum(len(part) for _, part in line)
        if used < len(text):
            line.append(("", text[used:]))
    return lines


def _in_field_syntax(token: tokenize.TokenInfo, fields: list[int], previous: str) -> bool:
    """Whether `token` is the syntax of an f-string's field (its braces, `!r`, `:`, `=`), which
    Pygments colours with the string, as Python 3.12 and later tokenize f-strings. Keeps `fields`."""
    if token.type in _FSTRING_PARTS:
        if token.type == _FSTRING_PARTS_BY_NAME.get("FSTRING_START"):
            fields.append(0)
        elif token.type == _FSTRING_PARTS_BY_NAME.get("FSTRING_END") and fields:
            fields.pop()
        return False
    if fields and token.type == tokenize.NAME and previous == "!" and fields[-1] == 1:
        return True  # the conversion of `!r`
    if not fields or token.type != tokenize.OP:
        return False
    depth, text = fields[-1], token.string
    if text in "{[(":
        fields[-1] += 1
        return text == "{" and depth == 0
    if text in "}])":
        fields[-1] = max(depth - 1, 0)
        return text == "}" and depth == 1
    return depth == 1 and text in ("!", ":", "=")


def _import_path(token: tokenize.TokenInfo, path: str | None) -> str | None:
    """Whether `token` is in an import's module path, and of which statement: `import a.b as c, d`
    or `from a.b` (up to its `import`)."""
    if token.type == tokenize.NAME and token.string in _NAMESPACE and not token.line[: token.start[1]].strip():
        return token.string
    if path == "from" and token.string == "import":
        return None
    if path is not None and (token.type == tokenize.NAME or token.string in ".,"):
        return path
    return None


def _token_type(token: tokenize.TokenInfo, previous: str, following: tokenize.TokenInfo | None) -> _TokenType | None:
    kind, text = token.type, token.string
    if kind == tokenize.OP and text == "@":  # Pygments: `@name` is one decorator token, `a @ b` a product
        return Name.Decorator if _touching(token, following, tokenize.NAME) else Operator
    if kind == tokenize.NAME:
        if previous == "def":
            return Name.Function
        if previous == "class":
            return Name.Class
        if previous == "@" and token.line[token.start[1] - 1 : token.start[1]] == "@":
            return Name.Decorator
        if text in _CONSTANTS:
            return Keyword.Constant
        if text in _OPERATOR_WORDS:
            return Operator.Word
        if text in _NAMESPACE:
            return Keyword.Namespace
        if keyword.iskeyword(text):
            return Keyword
        if text in _MAGIC_METHODS:
            return Name.Function.Magic
        if previous != "." and text in _BUILTINS:
            return Name.Builtin
        if previous != "." and text in _PSEUDO:
            return Name.Builtin.Pseudo
        return None
    if kind == tokenize.NUMBER:
        return Number
    if kind == tokenize.STRING or kind in _FSTRING_PARTS:
        return String
    if kind == tokenize.COMMENT:
        return Comment
    if kind == tokenize.OP and set(text) <= _OPERATOR_CHARS and text != ":":
        return Operator
    return None


def _is_fstring(text: str) -> bool:
    prefix = text[: len(text) - len(text.lstrip("rRbBfFuU"))]
    return "f" in prefix.lower()


def _fstring(text: str, code: str, sgr) -> Segments:
    """A one-line f-string as Pygments colours it: the string, and each `{expression}` in it as code
    (its braces, `!r` and format spec coloured with the string)."""
    out: Segments = []
    at = start = 0
    while at < len(text):
        if text.startswith("{{", at) or text.startswith("}}", at):
            at += 2
            continue
        if text[at] != "{":
            at += 1
            continue
        end = _closing(text, at)
        if end is None:
            break
        inner = text[at + 1 : end]
        expression = inner[: _expression_end(inner)].rstrip("= ")
        lexed = python_segments([expression], sgr) if expression.strip() else None
        if lexed is None:
            at = end + 1
            continue
        out.append((code, text[start : at + 1]))
        out += lexed[0]
        start = at + 1 + len(expression)
        at = end + 1
    out.append((code, text[start:]))
    return [segment for segment in out if segment[1]]


def _expression_end(inner: str) -> int:
    """Where an f-string field's expression ends: at its top-level `!r` or `:` format spec."""
    depth = 0
    for i, ch in enumerate(inner):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and (ch == ":" or ch == "!" and inner[i + 1 : i + 2] in ("r", "s", "a")):
            return i
    return len(inner)


def _closing(text: str, at: int) -> int | None:
    """Where the brace opened at `at` closes, past nested brackets; None if it does not."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] in "{[(":
            depth += 1
        elif text[i] in "}])":
            depth -= 1
            if depth == 0:
                return i
    return None


def _touching(token: tokenize.TokenInfo, following: tokenize.TokenInfo | None, kind: int) -> bool:
    return following is not None and following.type == kind and following.start == token.end


# Python 3.12 and later tokenize f-strings in parts; all of them are coloured as the string.
_FSTRING_PARTS_BY_NAME = {
    name: getattr(tokenize, name)
    for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
    if hasattr(tokenize, name)
}
_FSTRING_PARTS = frozenset(_FSTRING_PARTS_BY_NAME.values())
