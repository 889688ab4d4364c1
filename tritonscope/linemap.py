"""The source-line map: which lines of each stage came from which Python lines.

Built from each stage's own location records (see parsers/), with no GPU. Stored per
stage as {stage line: ((file, line), ...)}; the queries here read it either way.
"""

from __future__ import annotations

from pathlib import Path

from .errors import UsageError
from .model import Compilation, Stage
from .parsers import asm_loc, llvm_debug, mlir_locations, sass_lines

SourceLine = tuple[str, int]
StageMap = dict[int, tuple[SourceLine, ...]]

PARSERS = {  # the parser of each stage's location records
    Stage.TTIR: mlir_locations.parse,
    Stage.TTGIR: mlir_locations.parse,
    Stage.LLIR: llvm_debug.parse,
    Stage.PTX: asm_loc.parse_ptx,
    Stage.SASS: sass_lines.parse,
    Stage.AMDGCN: asm_loc.parse_amdgcn,
}


def build(stages: dict[Stage, str], kernel_file: str, first_line: int) -> dict[Stage, StageMap]:
    line_map: dict[Stage, StageMap] = {}
    for stage, text in stages.items():
        if stage is Stage.SOURCE:  # each line of code is its own source; blanks and comments are none
            line_map[stage] = {
                n: ((kernel_file, first_line + n - 1),)
                for n, code in enumerate(text.splitlines(), start=1)
                if code.strip() and not code.strip().startswith("#")
            }
        else:
            line_map[stage] = PARSERS[stage](text)
    return line_map


def stage_lines(c: Compilation, stage: Stage, source_lines: set[SourceLine]) -> list[int]:
    """The lines of `stage` that came from any of `source_lines`."""
    return [n for n, sources in c.line_map.get(stage, {}).items() if source_lines.intersection(sources)]


def sources_of(c: Compilation, stage: Stage, line: int) -> tuple[SourceLine, ...]:
    return c.line_map.get(stage, {}).get(line, ())


def python_lines(c: Compilation) -> list[SourceLine]:
    """Every Python line some stage maps to: the kernel file's first, then others (helpers, tl.*)."""
    found = {s for stage_map in c.line_map.values() for sources in stage_map.values() for s in sources}
    return sorted(found, key=lambda s: (s[0] != c.kernel.file, s))


def by_source(c: Compilation) -> list[dict]:
    """The map from each Python line to the lines of each stage: the JSON report's form."""
    table: dict[SourceLine, dict[str, list[int]]] = {}
    for stage, stage_map in c.line_map.items():
        for number, sources in stage_map.items():
            for source in sources:
                table.setdefault(source, {}).setdefault(stage.value, []).append(number)
    return [{"file": file, "line": line, "stages": table[(file, line)]} for file, line in sorted(table)]


def requested_lines(c: Compilation, line: int | None, lines: str | None) -> frozenset[SourceLine] | None:
    """The Python lines named by --line N or --lines A-B, checked against the kernel; None for all."""
    if line is None and lines is None:
        return None
    if line is not None and lines is not None:
        raise UsageError("give --line or --lines, not both")
    if lines is not None:
        first, sep, last = lines.partition("-")
        try:
            low, high = int(first), int(last if sep else first)
        except ValueError:
            raise UsageError(f"--lines expects A-B, e.g. --lines 40-44; got '{lines}'") from None
        numbers = range(min(low, high), max(low, high) + 1)
    else:
        numbers = range(line, line + 1)
    end = c.kernel.first_line + c.kernel.source.count("\n") - 1
    mapped = {n for file, n in python_lines(c) if file == c.kernel.file}
    outside = [n for n in numbers if not (c.kernel.first_line <= n <= end or n in mapped)]
    if outside:
        raise UsageError(
            f"line {outside[0]} is outside {c.kernel.name} (lines {c.kernel.first_line}-{end} of "
            f"{Path(c.kernel.file).name}, plus the helpers it calls)"
        )
    return frozenset((c.kernel.file, n) for n in numbers)
