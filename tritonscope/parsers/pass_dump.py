"""Reads the pass-by-pass IR dumps Triton writes with MLIR_ENABLE_DUMP and LLVM_IR_ENABLE_DUMP.

MLIR (the IR *before* each pass, the whole module each time):

    // -----// IR Dump Before TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' operation) //----- //
    // -----// SoftwarePipeliner internal IR Dump After: LowerLoops        (a step inside a pass)

tritonscope adds one last snapshot, the module after the final pass, under FINAL_HEADER.
LLVM (the IR *after* each pass, of the module or of one function):

    ; *** IR Dump After SROAPass on add_kernel ***
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import ParseError

FINAL_HEADER = "// -----// IR Dump After All (tritonscope-final) //----- //"
# Up to Triton 3.7: `Before TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' operation)`; since 3.8
# (newer MLIR): `Before TritonGPUCoalesce: tritongpu-coalesce ('builtin.module' operation)`, options in braces
# after the argument (`inline{default-pipeline=canonicalize ...}`) and upstream classes named *Pass (InlinerPass).
_BEFORE = re.compile(
    r"^// -----// IR Dump Before (?:(?P<old_class>\S+) \((?P<old_argument>\S*)\)"
    r"|(?P<class>\S+): (?P<argument>[^\s{]+)(?:\{[^}]*\})?)"
    r" \('(?P<scope>[^']*)' operation(?:: @?(.*))?\) //----- //\s*$"  # up to 3.6 a function name may hold (1,)
)
# Each header is matched in one pass: a lazy group is followed by a literal, never by a pattern that
# rescans the rest of the line (`(.+?)\s*$` on a line of spaces, `.* Failed .*` are quadratic).
_INTERNAL = re.compile(r"^// -----// (.+?) internal IR Dump After: (.+)$")
_AFTER_FAILURE_PREFIX, _AFTER_FAILURE_SUFFIX = "// -----// IR Dump After ", "//----- //"
_LLVM_AFTER = re.compile(r"^; \*\*\* IR Dump After (\S+) on (.+?) \*\*\*(.*)$")
_LLVM_AFTER_TAIL = re.compile(r"\s*(?:\(.*\))?\s*")
# What LLVM prints besides its new pass manager's dumps under LLVM_IR_ENABLE_DUMP: the pass manager's
# log, and the legacy (codegen) and machine passes' dumps, printed after the final MLIR module
_LLVM_OTHER = re.compile(
    r"^(?:(?:Running|Skipping) (?:pass|analysis): |Invalidating (?:analysis|all)|Clearing all analysis"
    r"|\*\*\* IR Dump |# \*\*\* IR Dump )"
)
_LLVM_SKIPPED = re.compile(
    r"^; \*\*\* IR Dump After (\S+) on (.+?) (omitted because no change|filtered out|\(invalidated\)) \*\*\*"
)


class PassDumpError(ParseError):
    """A dump that cannot be read as one."""


@dataclass
class Snapshot:
    """The IR just before one pass ran (or, for the final snapshot, after the last one)."""

    class_name: str
    argument: str  # the pass's command-line name: tritongpu-coalesce
    scope: str  # the operation it ran on: builtin.module, tt.func
    text: str
    substeps: list[tuple[str, str]] = field(default_factory=list)  # (name, IR) dumped inside the pass


@dataclass
class LlvmSnapshot:
    pass_name: str
    scope: str  # [module] or a function name
    text: str | None  # None where LLVM omitted it because the pass changed nothing


def parse_mlir(dump: str) -> tuple[list[Snapshot], str | None]:
    """The snapshots before each pass, in order, and the final module if the dump has it."""
    sections: list[tuple[Snapshot, list[str], list[tuple[str, list[str]]]]] = []
    final: list[str] | None = None
    target: list[str] | None = None  # where the next IR line goes
    for line in dump.splitlines():
        before = _BEFORE.match(line)
        internal = _INTERNAL.match(line)
        if before:
            target = []
            class_name = before["class"] or before["old_class"]
            argument = before["argument"] if before["class"] else before["old_argument"]
            sections.append((Snapshot(class_name, argument, before["scope"], ""), target, []))
        elif internal and sections:
            target = []
            step = internal.group(2).rstrip() or internal.group(2)[0]
            sections[-1][2].append((f"{internal.group(1)}: {step}", target))
        elif line.strip() == FINAL_HEADER:
            final = target = []
        elif _is_failure(line) or _llvm_after(line) or _LLVM_SKIPPED.match(line) or _LLVM_OTHER.match(line):
            target = None  # not part of the MLIR snapshots
        elif target is not None:
            target.append(line)
    if not sections:
        raise PassDumpError("the dump holds no '// -----// IR Dump Before' sections")
    snapshots = []
    for snapshot, lines, substeps in sections:
        snapshot.text = _joined(lines)
        snapshot.substeps = [(name, _joined(step)) for name, step in substeps]
        snapshots.append(snapshot)
    return snapshots, (_joined(final) if final is not None else None)


def parse_llvm(dump: str) -> list[LlvmSnapshot]:
    """The LLVM IR after each LLVM pass that printed it, in order."""
    sections: list[tuple[str, str, list[str] | None]] = []
    target: list[str] | None = None
    for line in dump.splitlines():
        after = _llvm_after(line)
        skipped = _LLVM_SKIPPED.match(line)
        if skipped:
            target = None
            if skipped.group(3) == "omitted because no change":
                sections.append((skipped.group(1), skipped.group(2), None))
        elif after:
            target = []
            sections.append((after.group(1), after.group(2), target))
        elif _BEFORE.match(line) or line.strip() == FINAL_HEADER:
            target = None
        elif target is not None:
            target.append(line)
    return [LlvmSnapshot(name, scope, None if lines is None else _joined(lines)) for name, scope, lines in sections]


def _is_failure(line: str) -> bool:
    """`// -----// IR Dump After ... Failed ...//----- //`: what MLIR prints after a pass that failed."""
    stripped = line.rstrip()
    inside = stripped[len(_AFTER_FAILURE_PREFIX) : len(stripped) - len(_AFTER_FAILURE_SUFFIX)]
    return line.startswith(_AFTER_FAILURE_PREFIX) and stripped.endswith(_AFTER_FAILURE_SUFFIX) and " Failed " in inside


def _llvm_after(line: str) -> re.Match | None:
    """`; *** IR Dump After PASS on SCOPE ***`, maybe followed by `(...)`."""
    match = _LLVM_AFTER.match(line)
    return match if match and _LLVM_AFTER_TAIL.fullmatch(match.group(3)) else None


def _joined(lines: list[str]) -> str:
    return "\n".join(lines).strip("\n")
