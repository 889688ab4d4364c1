"""Reads nvdisasm's line information in a SASS listing (`nvdisasm -c -gi -gp`).

    //## File "/path/k.py", line 9 inlined at "/path/k.py", line 17
    //## File ".nv_debug_ptx_txt", line 530
            /*0030*/                   HFMA2.MMA R9, -RZ, RZ, 0, 0 ;

A comment applies to the instructions that follow it, up to the next one. The first
kind names a Python line; the second (`-gp`) the line of the PTX the SASS came from,
which is how the call site of an inlined helper is found: Triton's cubins carry no
inlining records, but its PTX names the call site of each line (`@[ k.py:17 ]`).

The file names are read as written: the listing tritonscope holds has them as the text they are
already (`asm_loc.real_file_names`), and reading escapes twice would turn a `\\001` in a real name
into a byte.
"""

from __future__ import annotations

import re

SourceLine = tuple[str, int]

_LINE_INFO = re.compile(r'^\s*//##\s*File\s+"([^"]*)",\s*line\s+(\d+)(.*)$')
_INLINED = re.compile(r'inlined at\s+"([^"]*)",\s*line\s+(\d+)')
_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-fA-F]+\*/")
_MAX_DIGITS = 18  # a longer line number is not one (and int() refuses over 4300 digits)


_PTX_FILE = ".nv_debug_ptx_txt"


def parse(text: str) -> dict[int, tuple[SourceLine, ...]]:
    """Since Triton 3.8 (PTX `.loc ... inlined_at`) nvdisasm writes the whole inlining stack before an
    instruction, one `//##` line per frame, innermost first and the call site last; the lines of one
    stack add up."""
    current: tuple[SourceLine, ...] = ()
    result: dict[int, tuple[SourceLine, ...]] = {}
    stacking = False  # the previous line was line information too
    for number, line in enumerate(text.splitlines(), start=1):
        info = _LINE_INFO.match(line)
        if info and info.group(1) == _PTX_FILE:
            continue
        stacked, stacking = stacking, bool(info)
        if info:
            found = [(p, str(n)) for p, n in current] if stacked else []
            found += [(info.group(1), info.group(2))] + _INLINED.findall(info.group(3))
            current = tuple(dict.fromkeys((p, int(n)) for p, n in found if len(n) <= _MAX_DIGITS and int(n) > 0))
        elif line.lstrip().startswith(".section"):
            current = ()
        elif current and _INSTRUCTION.match(line):
            result[number] = current
    return result


def is_line_info(line: str) -> bool:
    return bool(_LINE_INFO.match(line))


def ptx_lines(text: str) -> dict[int, int]:
    """{SASS line: the PTX line it came from}, from nvdisasm's `-gp` comments."""
    current = 0
    result: dict[int, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        info = _LINE_INFO.match(line)
        if info and info.group(1) == _PTX_FILE:
            current = int(info.group(2))
        elif line.lstrip().startswith(".section"):
            current = 0
        elif current and _INSTRUCTION.match(line):
            result[number] = current
    return result


def renumber_ptx_lines(text: str, numbers: list[int]) -> str:
    """The listing with each `-gp` PTX line N replaced by numbers[N - 1]: nvdisasm counts the lines of
    the PTX ptxas was given, which may differ from the PTX shown (see asm_loc.kept_line_numbers)."""

    def renumbered(match: re.Match) -> str:
        n = int(match.group(2))
        return f"{match.group(1)}{numbers[n - 1] if 0 < n <= len(numbers) else n}"

    return _PTX_LINE.sub(renumbered, text)


_PTX_LINE = re.compile(r'^(\s*//##\s*File\s+"\.nv_debug_ptx_txt",\s*line\s+)(\d{1,18})', re.MULTILINE)


def hgmma_waits(text: str) -> tuple[int, int]:
    """(HGMMA instructions, those that end a wgmma group: `gsb0`, waited for by a
    `WARPGROUP.DEPBAR`). A pipelined chain of k-steps marks only its last; when ptxas serializes
    wgmma, every one is marked and waited for before the next issues."""
    hgmma = [line for line in text.splitlines() if "HGMMA." in line and not is_line_info(line)]
    return len(hgmma), sum("gsb0" in line for line in hgmma)
