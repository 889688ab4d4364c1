"""How many times each loop runs, where its bounds follow from values known at compile time.

A loop's bounds are TTGIR values (`scf.for %k = %c0 to %ub step %c1`), computed from the kernel's
arguments by integer ops (`tl.cdiv(K, 64)` is an arith.addi and an arith.divsi). Where those
arguments' values are known (given with -a NAME=VALUE, a sample's defaults, or a captured launch's
arguments) the ops are evaluated: the trip count of program 0 (its first iteration for a loop
inside another). `tl.num_programs` is known where a launch's grid is (a persistent kernel's
`range(pid, num_tiles, num_programs)`). Anything else (a value loaded from memory, an op not read
here) leaves the loop's count unknown.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..core.model import Compilation
from ..core.stages import Stage
from . import ttgir

_FOR = re.compile(r"scf\.for\s+(%[\w#.]+)\s*=\s*(%[\w#.]+)\s+to\s+(%[\w#.]+)\s+step\s+(%[\w#.]+)")
_CONSTANT = re.compile(r"arith\.constant\s+(-?\d+)\s*:\s*(?:i\d+|index)\b")
_BINARY: dict[str, Callable[[int, int], int | None]] = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divsi": lambda a, b: int(a / b) if b else None,
    "arith.divui": lambda a, b: a // b if b else None,
    "arith.ceildivsi": lambda a, b: -(-a // b) if b else None,
    "arith.remsi": lambda a, b: a - b * int(a / b) if b else None,
    "arith.remui": lambda a, b: a % b if b else None,
    "arith.maxsi": max,
    "arith.minsi": min,
}
_SAME = ("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "arith.bitcast")


def known_values(c: Compilation) -> dict[str, int]:
    """The integer (and bool) arguments whose values are known: the variant's, then a recorded launch's."""
    found = {name: v for name, v in c.variant.arguments.items() if isinstance(v, int)}
    for launch in c.launches[:1]:
        for name, arg in zip(launch.get("params") or (), launch.get("args") or (), strict=False):
            if isinstance(arg, dict) and arg.get("kind") == "int" and isinstance(arg.get("value"), int):
                found[name] = arg["value"]
    return found


Grid = tuple[int, int, int] | None  # a launch's, where one is known: tl.num_programs(axis) is its size


def loop_trips(c: Compilation, values: dict[str, int] | None = None, grid: Grid = None) -> dict[int, int]:
    """{kernel-file line of a loop: how many times it runs}, for the loops whose bounds evaluate."""
    found: dict[int, int] = {}
    for line, trips, _, _ in _loops(c, Stage.TTGIR, values, grid):
        if line is not None and trips is not None:
            found[line] = max(found.get(line, 0), trips)
    return found


def trips_by_op(c: Compilation) -> dict[int, int]:
    """{TTGIR line of an scf.for: its trip count}, for the loops whose bounds evaluate."""
    return {number: trips for _, trips, number, _ in _loops(c, Stage.TTGIR, None) if trips is not None}


def flattened(c: Compilation, values: dict[str, int] | None = None, grid: Grid = None) -> dict[int, int]:
    """{kernel-file line: n} for a loop Triton flattened (`tl.range(..., flatten=True)`: TTGIR's one
    loop runs the outer loop's trips times the inner's): the lines of the outer body outside the inner
    loop (a tile's set-up and epilogue) run once every n iterations of it, n the inner loop's trips."""
    if "tt.flatten" not in c.stages.get(Stage.TTIR, ""):  # the loop's attribute: no TTIR read for the rest
        return {}
    counted = loop_trips(c, values, grid)
    loops = _loops(c, Stage.TTIR, values, grid)
    found: dict[int, int] = {}
    for line, trips, number, _ in loops:
        inner = [(n, t, at) for at, t, n, parent in loops if parent == number and at not in counted]
        if line is None or trips is None or len(inner) != 1:
            continue
        inner_number, inner_trips, inner_line = inner[0]
        if inner_trips is None or inner_trips < 2 or counted.get(line) != trips * inner_trips:
            continue
        outer_only = _lines_in(c, number) - _lines_in(c, inner_number) - {line, inner_line}
        found.update(dict.fromkeys(outer_only, inner_trips))
    return found


def _loops(
    c: Compilation, stage: Stage, values: dict[str, int] | None, grid: Grid = None
) -> list[tuple[int | None, int | None, int, int | None]]:
    """Each scf.for of the stage: (its kernel-file line, its trips for program 0's first iterations,
    its op's line in the stage's text, that of the loop holding it)."""
    module = ttgir.read(c.stages.get(stage, ""))
    known: dict[str, int] = {f"%{name}": value for name, value in (values or known_values(c)).items()}
    stage_map = c.line_map.get(stage, {})
    closing = _closing_lines(module)
    found = []
    for op in module.ops:
        _evaluate(op, known, grid)
        loop = _FOR.search(op.text) if op.name == "scf.for" else None
        if loop is None:
            continue
        lower, upper, step = (known.get(name) for name in loop.group(2, 3, 4))
        # a region op's location is printed after its closing brace
        located = stage_map.get(op.number) or stage_map.get(closing.get(op.number, 0), ())
        lines = [n for f, n in located if f == c.kernel.file]
        trips = None
        if lower is not None and upper is not None and step is not None and step > 0:
            trips = -(-(upper - lower) // step)
        found.append((lines[0] if lines else None, trips, op.number, op.loop))
        if lower is not None:
            known[loop.group(1)] = lower  # a loop inside sees its first iteration
    return found


def _lines_in(c: Compilation, number: int) -> set[int]:
    """The kernel-file lines of the TTIR ops inside the loop whose op is at TTIR line `number`."""
    module = ttgir.read(c.stages.get(Stage.TTIR, ""))
    start = next(i for i, op in enumerate(module.ops) if op.number == number)
    inside = module.ops[start + 1 : ttgir.region_end(module.ops, start)]
    stage_map = c.line_map.get(Stage.TTIR, {})
    return {n for op in inside for f, n in stage_map.get(op.number, ()) if f == c.kernel.file}


def _closing_lines(module: ttgir.Module) -> dict[int, int]:
    """{TTGIR line of a region op: the line of the brace that closes it}."""
    found: dict[int, int] = {}
    open_ops: list[int] = []
    for op in module.ops:
        if op.name == "}" and open_ops and not op.text.endswith("{"):
            found[open_ops.pop()] = op.number
        elif op.name != "}" and op.text.endswith("{"):
            open_ops.append(op.number)
    return found


def _evaluate(op: ttgir.Op, known: dict[str, int], grid: Grid = None) -> None:
    if len(op.results) != 1:
        return
    result = op.results[0]
    if op.name == "arith.constant":
        constant = _CONSTANT.search(op.text)
        if constant:
            known[result] = int(constant.group(1))
    elif op.name == "tt.get_program_id":
        known[result] = 0
    elif op.name == "tt.get_num_programs" and grid is not None:
        known[result] = grid[ttgir.grid_axis(op)]
    elif op.name in _SAME and op.operands and op.operands[0] in known:
        known[result] = known[op.operands[0]]
    elif op.name in _BINARY and len(op.operands) == 2 and all(o in known for o in op.operands):
        value = _BINARY[op.name](known[op.operands[0]], known[op.operands[1]])
        if value is not None:
            known[result] = value
