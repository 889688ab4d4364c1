"""The source-line map: which lines of each stage came from which Python lines.

Built from each stage's own location records (see parsers/), with no GPU. Stored per
stage as {stage line: ((file, line), ...)}; the queries here read it either way.
"""

from __future__ import annotations

from pathlib import Path

from ..core.errors import UsageError
from ..core.model import Compilation
from ..core.stages import STAGES, SourceLine, Stage, StageMap


def build(
    stages: dict[Stage, str], kernel_file: str, first_line: int, known: dict[Stage, StageMap] | None = None
) -> dict[Stage, StageMap]:
    """Every stage's map; those in `known` (built by an earlier call, on the earlier stages) are kept."""
    known = known or {}
    line_map: dict[Stage, StageMap] = {}
    for stage, text in stages.items():
        if stage in known:
            line_map[stage] = known[stage]
        elif stage is Stage.SOURCE:  # each line of code is its own source; blanks and comments are none
            line_map[stage] = {
                n: ((kernel_file, first_line + n - 1),)
                for n, code in enumerate(text.splitlines(), start=1)
                if code.strip() and not code.strip().startswith("#")
            }
        else:
            line_map[stage] = STAGES[stage].locations(text)
    for stage, text in stages.items():
        through = STAGES[stage].through
        if through is not None and through[0] in line_map and stage not in known:
            line_map[stage] = _joined(line_map[stage], through[1](text), line_map[through[0]])
    return line_map


def _joined(own: StageMap, pointers: dict[int, int], earlier: StageMap) -> StageMap:
    """A stage's own sources, with those of the earlier-stage lines its lines point at added."""
    joined = dict(own)
    for line, target in pointers.items():
        extra = earlier.get(target, ())
        if extra:
            joined[line] = tuple(dict.fromkeys((*joined.get(line, ()), *extra)))
    return joined


def kernel_line(c: Compilation, stage: Stage, number: int) -> int | None:
    """The first line of the kernel's own file that line `number` of `stage` came from, or None."""
    return next((n for f, n in c.line_map.get(stage, {}).get(number, ()) if f == c.kernel.file), None)


def stage_lines(c: Compilation, stage: Stage, source_lines: set[SourceLine]) -> list[int]:
    """The lines of `stage` that came from any of `source_lines`."""
    return [n for n, sources in c.line_map.get(stage, {}).items() if source_lines.intersection(sources)]


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


def from_by_source(entries: list[dict]) -> dict[str, dict[int, list[SourceLine]]]:
    """A JSON report's map (`by_source`'s form) turned back: stage -> {its line: the Python lines}."""
    found: dict[str, dict[int, list[SourceLine]]] = {}
    for entry in entries:
        for stage, numbers in entry.get("stages", {}).items():
            for number in numbers:
                found.setdefault(stage, {}).setdefault(number, []).append((entry["file"], entry["line"]))
    return found


def requested_lines(c: Compilation, lines: tuple[int, int] | None) -> frozenset[SourceLine] | None:
    """The Python lines A to B (from --line N or --lines A-B), checked against the kernel; None for all."""
    if lines is None:
        return None
    low, high = min(lines), max(lines)
    valid = kernel_lines(c)
    # At most len(valid) + 1 steps, however wide the range asked for.
    outside = next((n for n in range(low, high + 1) if n not in valid), None)
    if outside is not None:
        raise UsageError(outside_kernel(c, outside))
    return frozenset((c.kernel.file, n) for n in range(low, high + 1))


def kernel_lines(c: Compilation) -> frozenset[int]:
    """The lines of the kernel's file a line may be asked for by: its own source's, and those of the
    helpers it calls in the same file (any stage maps to them)."""
    end = c.kernel.first_line + c.kernel.source.count("\n") - 1
    own = {n for file, n in python_lines(c) if file == c.kernel.file}
    return frozenset(range(c.kernel.first_line, end + 1)) | own


def outside_kernel(c: Compilation, line: int) -> str:
    """What every command that takes a line (dump --line, check's line budgets) says of one outside the kernel."""
    end = c.kernel.first_line + c.kernel.source.count("\n") - 1
    return (
        f"line {line} is outside {c.kernel.name} (lines {c.kernel.first_line}-{end} of "
        f"{Path(c.kernel.file).name}, plus the helpers it calls)"
    )
