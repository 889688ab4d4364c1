"""Reads the timing reports Triton prints with MLIR_ENABLE_TIMING and LLVM_ENABLE_TIMING.

MLIR (one report per pass-manager run, when the pass manager is destroyed; a tree in run order,
a nested pass indented two more spaces under the pipeline or pass that ran it):

    ... Execution time report ...
      ----Wall Time----  ----Name----
        0.0004 ( 30.6%)  Inliner
        0.0000 (  1.5%)    (A) CallGraph
        0.0002 ( 12.9%)  'tt.func' Pipeline
        0.0002 ( 12.7%)    Canonicalizer
        0.0002 ( 12.1%)  Rest
        0.0014 (100.0%)  Total

LLVM (legacy pass manager, per run, sorted by time; the wall time is the last figure):

    Pass execution timing report
       ---User Time---   --System Time--   --User+System--   ---Wall Time---  --- Name ---
       0.0005 ( 34.2%)   0.0001 ( 58.0%)   0.0006 ( 35.8%)   0.0006 ( 35.5%)  NVPTX DAG->DAG Pattern ...

tritonscope's worker writes STAGE_MARK lines between Triton's stages, so each report is known
to belong to one stage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

STAGE_MARK = "// tritonscope-stage "
_MLIR_TITLE = "... Execution time report ..."
_LLVM_TITLE = "Pass execution timing report"
_FIGURE = r"(\d+\.\d+) \(\s*[\d.]+%\)"
# Up to 3.5 a user-time column comes before the wall time; the wall time is always the last figure.
_MLIR_ROW = re.compile(rf"^\s*(?:{_FIGURE}\s+)?{_FIGURE}  (\s*)(\S.*?)\s*$")
_LLVM_ROW = re.compile(rf"^\s*(?:{_FIGURE}\s+)+\s*(?P<name>\S.*?)\s*$")
_LLVM_WALL = re.compile(_FIGURE)


@dataclass(frozen=True)
class TimedPass:
    """One pass of a report: its own wall time (what passes nested in it took is theirs)."""

    name: str  # the pass's class name (MLIR) or description (LLVM)
    seconds: float
    depth: int  # nesting in the MLIR tree (0: top level); 0 for LLVM


@dataclass(frozen=True)
class Report:
    kind: str  # "mlir" or "llvm"
    stage: str | None  # the Triton stage it ran in (ttir, ttgir, llir, ptx ...), None if not marked
    passes: tuple[TimedPass, ...]
    rest: float  # MLIR's "Rest": the pass manager's own time, outside every pass
    total: float


def parse(text: str) -> list[Report]:
    """Every MLIR and LLVM timing report in `text`, in order, each with the stage it ran in."""
    reports: list[Report] = []
    stage: str | None = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(STAGE_MARK):
            stage = line[len(STAGE_MARK) :].strip()
        elif _MLIR_TITLE in line or line.strip() == _LLVM_TITLE:
            kind = "mlir" if _MLIR_TITLE in line else "llvm"
            body, i = _body(lines, i + 1)
            reports.append(_mlir(body, stage) if kind == "mlir" else _llvm(body, stage))
            continue
        i += 1
    return reports


def _body(lines: list[str], start: int) -> tuple[list[str], int]:
    """The report's rows, up to and including its Total row; and the index after it."""
    body = []
    for i in range(start, len(lines)):
        body.append(lines[i])
        if lines[i].rstrip().endswith("  Total"):
            return body, i + 1
    return body, len(lines)


def _mlir(body: list[str], stage: str | None) -> Report:
    rows = []  # (depth, seconds, name)
    for line in body:
        match = _MLIR_ROW.match(line)
        if match:
            rows.append((len(match[3]) // 2, float(match[2]), match[4]))
    top = {name: seconds for depth, seconds, name in rows if depth == 0 and name in ("Rest", "Total")}
    names: list[tuple[str, int]] = []  # each pass, with its depth
    own: list[float] = []  # its time less that of the passes nested in it
    stack: list[tuple[int, int | None]] = []  # (depth, the pass's place in `own`, None for others)
    for depth, seconds, name in rows:
        if depth == 0 and name in top:
            continue
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if name.startswith("(A) ") or name.endswith(" Pipeline"):  # analyses stay in their pass's time
            stack.append((depth, None))
            continue
        parent = next((place for _, place in reversed(stack) if place is not None), None)
        if parent is not None:
            own[parent] -= seconds
        stack.append((depth, len(own)))
        names.append((name, depth))
        own.append(seconds)
    passes = tuple(TimedPass(name, max(seconds, 0.0), depth) for (name, depth), seconds in zip(names, own, strict=True))
    return Report("mlir", stage, passes, top.get("Rest", 0.0), top.get("Total", 0.0))


def _llvm(body: list[str], stage: str | None) -> Report:
    passes = []
    total = 0.0
    for line in body:
        match = _LLVM_ROW.match(line)
        if not match:
            continue
        seconds = float(_LLVM_WALL.findall(line)[-1])
        name = match["name"]
        if name == "Total":
            total = seconds
        else:
            passes.append(TimedPass(name, seconds, 0))
    return Report("llvm", stage, tuple(passes), 0.0, total)
