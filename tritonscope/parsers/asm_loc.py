"""Reads the `.file`/`.loc` line directives that LLVM writes into PTX and AMDGCN assembly.

    .file 1 "/path/k.py"               (PTX)     .file 1 "/path" "k.py"      (AMDGCN)
    .loc 1 9 43   // k.py:9:43 @[ k.py:17:40 ]   (code inlined from line 9, called at line 17)

A `.loc` applies to the instructions that follow it, up to the next `.loc`. The
`@[ ... ]` comment names the call sites of inlined code by file base name.
"""

from __future__ import annotations

import os
import re

SourceLine = tuple[str, int]

_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"((?:\\.|[^"\\])*)"(?:\s*,\s*\d+\s*,\s*\d+)?(?:\s+"((?:\\.|[^"\\])*)")?')
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(.*)$")
_INLINED_AT = re.compile(r"inlined_at\s+(\d+)\s+(\d+)\s+\d+")
# A name stops at `@` and `[`: the next `@[` starts a new try (else each `@[` rescans the rest: quadratic).
_CALL_SITE = re.compile(r"@\[\s*([^:\s\]\[@]+):(\d+):\d+")
_MAX_DIGITS = 18  # a longer line number is not one (and int() refuses over 4300 digits)
_PTX_INSTRUCTION = re.compile(r"^\s*(@!?%\w+\s+)?[a-z][\w.]*(\s|;)")
_AMDGCN_INSTRUCTION = re.compile(r"^\s+[a-z][a-z0-9_]*(\s|$)")


def parse_ptx(text: str) -> dict[int, tuple[SourceLine, ...]]:
    return _parse(text, _PTX_INSTRUCTION)


def parse_amdgcn(text: str) -> dict[int, tuple[SourceLine, ...]]:
    return _parse(text, _AMDGCN_INSTRUCTION)


def is_directive(line: str) -> bool:
    """A `.file` or `.loc` line: location noise in a listing."""
    return bool(_FILE.match(line) or _LOC.match(line))


_ASM_BEGIN, _ASM_END = "// begin inline asm", "// end inline asm"


def without_inline_asm_locs(ptx: str) -> str:
    """PTX without the `.loc` lines inside inline-asm blocks: since Triton 3.8 LLVM writes one before
    each line of a block, the line number counted up by one each time, so a 5-line load block at
    line 21 claims lines 21 to 25. The `.loc` before the block (the block's own line) then holds
    for all of it, as before 3.8."""
    return "".join(line for _, line in _kept(ptx))


def kept_line_numbers(ptx: str) -> list[int]:
    """The line number in `ptx` of each line of `without_inline_asm_locs(ptx)`, in order: what turns a
    line of the PTX ptxas was given (nvdisasm's `-gp`) back into a line of the PTX Triton wrote."""
    return [number for number, _ in _kept(ptx)]


def _kept(ptx: str):
    inside = False
    for number, line in enumerate(ptx.splitlines(keepends=True), start=1):
        stripped = line.strip()
        if stripped in (_ASM_BEGIN, _ASM_END):
            inside = stripped == _ASM_BEGIN
        elif inside and _LOC.match(line):
            continue
        yield number, line


def _parse(text: str, instruction: re.Pattern) -> dict[int, tuple[SourceLine, ...]]:
    lines = text.splitlines()
    files: dict[str, str] = {}  # PTX lists its files at the end, after the code that names them
    for line in lines:
        file_match = _FILE.match(line)
        if file_match:
            index, first, second = file_match.groups()
            first, second = unescaped_name(first), second and unescaped_name(second)
            files[index] = os.path.join(first, second) if second else first
    by_name = {os.path.basename(path): path for path in files.values()}
    current: tuple[SourceLine, ...] = ()
    result: dict[int, tuple[SourceLine, ...]] = {}
    inside_asm = False  # since Triton 3.8 the `.loc` lines inside inline asm count up: see without_inline_asm_locs
    for number, line in enumerate(lines, start=1):
        if _FILE.match(line):
            continue
        if line.strip() in (_ASM_BEGIN, _ASM_END):
            inside_asm = line.strip() == _ASM_BEGIN
            continue
        loc = _LOC.match(line)
        if loc:
            if not inside_asm:
                current = _location(loc, files, by_name)
            continue
        stripped = line.strip()
        if stripped.startswith(".section") and "debug" in stripped or stripped.startswith(".Lfunc_end"):
            current = ()  # debug data and what follows a function are not code
        elif current and instruction.match(line) and not stripped.startswith((".", "//", ";")):
            result[number] = current
    return result


def _location(match: re.Match, files: dict[str, str], by_name: dict[str, str]) -> tuple[SourceLine, ...]:
    index, line, rest = match.group(1), match.group(2), match.group(3)
    if len(line) > _MAX_DIGITS or int(line) == 0 or index not in files:
        return ()
    found = [(files[index], int(line))]
    for inlined in _INLINED_AT.finditer(rest):
        if inlined.group(1) in files and len(inlined.group(2)) <= _MAX_DIGITS:
            found.append((files[inlined.group(1)], int(inlined.group(2))))
    for call in _CALL_SITE.finditer(rest):
        if call.group(1) in by_name and len(call.group(2)) <= _MAX_DIGITS:
            found.append((by_name[call.group(1)], int(call.group(2))))
    return tuple(dict.fromkeys(found))


# ptxas up to CUDA 12.8 refuses PTX with a non-ASCII character, and Triton writes the kernel file's
# name into its comments (`// dé.py:8:0` beside each `.loc`); LLVM writes the `.file` names with each
# non-ASCII byte as an octal escape (`"/home/\345\274\240.../k.py"`), which ptxas takes. ptxas
# is given the PTX with every non-ASCII character percent-encoded (one line for one line: the line
# numbers hold). nvdisasm prints the escapes back, but for the last of the file's own name, which
# it writes behind a `/` (`d\303/251.py`): `unescaped_name` reads both spellings.
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_ESCAPE = re.compile(r"\\(\\)|\\([0-3][0-7]{2})|/(2[0-7]{2})")  # a backslash is written `\\`
_QUOTED = re.compile(r'"([^"\n]*(?:[\\/][0-7]{3}|\\\\)[^"\n]*)"')


def ascii_only(ptx: str) -> str:
    """The PTX with every non-ASCII character percent-encoded (the PTX itself, if it has none)."""
    return ptx if ptx.isascii() else _NON_ASCII.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), ptx)


def unescaped_name(name: str) -> str:
    """A file name as LLVM or nvdisasm spell it (UTF-8 bytes as octal escapes) as the text it is.
    A `/2oo` counts as a byte only where a UTF-8 character still needs one (else it is a folder)."""
    if "\\" not in name:
        return name
    data, position, pending = bytearray(), 0, 0
    for match in _ESCAPE.finditer(name):
        between = name[position : match.start()]
        if match.group(3) and (pending == 0 or between):
            continue
        data += between.encode()
        byte = 0x5C if match.group(1) else int(match.group(2) or match.group(3), 8)
        data.append(byte)
        continues = 0x80 <= byte < 0xC0 and not between
        pending = _continuations(byte) if byte >= 0xC0 else max(0, pending - 1) if continues else 0
        position = match.end()
    data += name[position:].encode()
    try:
        return data.decode()
    except UnicodeDecodeError:
        return name


_HEX_ESCAPE = re.compile(r"\\(\\|[0-9A-Fa-f]{2})")


def unescaped_hex(name: str) -> str:
    r"""A file name as MLIR and LLVM IR print it (`caf\C3\A9.py`: UTF-8 bytes as hex escapes, a
    backslash as `\\`) as the text it is; the name unchanged when the escapes are not UTF-8."""
    if "\\" not in name:
        return name
    data, position = bytearray(), 0
    for match in _HEX_ESCAPE.finditer(name):
        escape = match.group(1)
        data += name[position : match.start()].encode() + (b"\\" if escape == "\\" else bytes([int(escape, 16)]))
        position = match.end()
    data += name[position:].encode()
    try:
        return data.decode()
    except UnicodeDecodeError:
        return name


def _continuations(lead: int) -> int:
    return 1 if lead < 0xE0 else 2 if lead < 0xF0 else 3


def real_file_names(text: str, ptx: str | None = None) -> str:
    """`text` (what ptxas or nvdisasm printed) with each quoted file name that holds octal escapes
    written as the text it is."""
    return _QUOTED.sub(lambda m: f'"{unescaped_name(m.group(1))}"', text) if "\\" in text else text
