"""What each Python line of the kernel's file costs in machine code, read off the line map.

For every line of the kernel's own file that produced machine code (SASS on NVIDIA, AMDGCN
on AMD): its instruction mix (global loads and stores by width, shared loads and stores,
asynchronous copies and TMA, matrix instructions, barriers, local (spill) traffic), the
layout conversions TTGIR still holds on it with the bytes each moves, and, where nvdisasm's
life ranges were read, the most registers live at once in its instructions.

A machine instruction that maps to several Python lines (an inlined helper's line and its
call site) counts for each. One correction: ptxas's line table lets a warp-group matrix
instruction (HGMMA) inherit the line of whatever was scheduled before it, so a matrix
instruction placed on a line with no `tl.dot` is given the `tl.dot` lines of the nearest
matrix instruction that has them (or the kernel's one `tl.dot` line).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..core.model import Compilation, InstructionMix
from ..core.stages import Stage
from . import instruction_mix, layouts, ttgir
from .instruction_mix import Op


@dataclass(frozen=True)
class Conversion:
    """A `ttg.convert_layout` left in TTGIR: a tensor moved from one layout to another."""

    ttgir_line: int
    shape: tuple[int, ...]
    element: str  # f16, f32 ..., ptr<i32> for a tensor of pointers
    bytes: int  # the whole tensor, per block: what goes through shared memory when it does
    source: str  # the layouts, as TTGIR names them (#mma, #blocked1)
    destination: str
    through_shared: bool  # its line stores to shared memory in the machine code


@dataclass(frozen=True)
class LineCost:
    line: int  # in the kernel's own file
    code: str  # the Python text of the line
    instructions: InstructionMix
    tma: int = 0  # TMA and bulk copies (UTMALDG, UTMASTG, UBLKCP)
    async_copy_widths: dict[int, int] = field(default_factory=dict)  # bits per thread -> count (LDGSTS)
    conversions: tuple[Conversion, ...] = ()
    live_registers: int | None = None  # the most registers live at once in its instructions

    @property
    def shared_conversion_bytes(self) -> int:
        return sum(c.bytes for c in self.conversions if c.through_shared)


def line_costs(
    c: Compilation, live: dict[int, int] | None = None, module: ttgir.Module | None = None
) -> tuple[LineCost, ...]:
    """The cost of every line of the kernel's file that produced machine code or a conversion.
    `live`: registers live at each machine-code line (parsers/life_ranges.py), where read; `module`:
    the TTGIR already read (findings/kernel.py reads it once for every detector)."""
    machine = c.variant.target_info.vendor.machine_code
    module = module if module is not None else ttgir.read(c.stages.get(Stage.TTGIR, ""))
    per_line = _ops_by_line(c, machine, module)
    live_at = _peak_live(c, machine, live) if live else {}
    texts = source_texts(c)
    costs = {}
    for number, ops in per_line.items():
        costs[number] = LineCost(
            line=number,
            code=texts.get(number, ""),
            instructions=instruction_mix.tally(ops),
            tma=sum(op.kind in ("tma", "tma_store") for op in ops),
            async_copy_widths=dict(sorted(Counter(op.width for op in ops if op.kind == "async_copy").items())),
            live_registers=live_at.get(number),
        )
    for number, conversions in _conversions(c, costs, module).items():
        base = costs.get(number) or LineCost(number, texts.get(number, ""), instruction_mix.tally(()))
        costs[number] = LineCost(**{**vars(base), "conversions": conversions})
    return tuple(costs[n] for n in sorted(costs))


def _own_lines(c: Compilation, sources) -> list[int]:
    return list(dict.fromkeys(line for file, line in sources if file == c.kernel.file))


def machine_listing(
    c: Compilation, machine: Stage, module: ttgir.Module | None = None
) -> list[tuple[int, Op, list[int]]]:
    """Every machine instruction: (its line in the listing, the instruction, the kernel-file lines it
    counts for), matrix instructions put back on their `tl.dot` lines (module docstring)."""
    stage_map = c.line_map.get(machine, {})
    listing = [
        (n, op, _own_lines(c, stage_map.get(n, ()))) for n, op in instruction_mix.classify(machine, c.stages[machine])
    ]
    _matrix_to_dots(listing, dot_lines(c, module))
    return listing


def _ops_by_line(c: Compilation, machine: Stage, module: ttgir.Module) -> dict[int, list[Op]]:
    per_line: dict[int, list[Op]] = {}
    for _, op, lines in machine_listing(c, machine, module):
        for line in lines:
            per_line.setdefault(line, []).append(op)
    return per_line


def _matrix_to_dots(listing: list[tuple[int, Op, list[int]]], dots: dict[int, list[int]]) -> None:
    """Puts matrix instructions on their `tl.dot` lines where ptxas's line table strays (module docstring).

    A warp-group chain (from a WARPGROUP.ARRIVE to the next WARPGROUP op) is one dot's: it goes
    to the lines most of its instructions are on. A matrix instruction outside a chain on no
    dot line goes to the next one's lines that is on one (or to the one dot's lines)."""
    if not dots:
        return
    on_dot = [i for i, (_, op, lines) in enumerate(listing) if op.kind == "matrix" and lines and lines[0] in dots]
    for chain in _chains(listing):
        votes = Counter(tuple(listing[i][2]) for i in chain if listing[i][2] and listing[i][2][0] in dots)
        if votes:
            winner = list(votes.most_common(1)[0][0])
            for i in chain[1:]:
                listing[i] = (listing[i][0], listing[i][1], winner)
    for i, (number, op, lines) in enumerate(listing):
        if op.kind != "matrix" or (lines and lines[0] in dots):
            continue
        if on_dot:
            listing[i] = (number, op, listing[next((j for j in on_dot if j > i), on_dot[-1])][2])
        elif len(dots) == 1:
            listing[i] = (number, op, next(iter(dots.values())))


def _chains(listing: list[tuple[int, Op, list[int]]]) -> list[list[int]]:
    """Each warp-group chain: the index of its WARPGROUP.ARRIVE, then of its matrix instructions."""
    chains, current = [], None
    for i, (_, op, _) in enumerate(listing):
        if op.opcode.startswith("WARPGROUP"):
            current = [i] if op.opcode == "WARPGROUP.ARRIVE" else None
            if current is not None:
                chains.append(current)
        elif op.kind == "matrix" and current is not None:
            current.append(i)
    return chains


def dot_lines(c: Compilation, module: ttgir.Module | None = None) -> dict[int, list[int]]:
    """The matrix products TTGIR holds (tt.dot, warp-group dots): each one's innermost kernel-file
    line (a helper's own) -> all its lines (with the call sites)."""
    module = module if module is not None else ttgir.read(c.stages.get(Stage.TTGIR, ""))
    stage_map = c.line_map.get(Stage.TTGIR, {})
    found: dict[int, list[int]] = {}
    for op in module.ops:
        lines = _own_lines(c, stage_map.get(op.number, ())) if op.name in ttgir.DOT_OPS else []
        if lines:
            found[lines[0]] = lines
    return found


def _peak_live(c: Compilation, machine: Stage, live: dict[int, int]) -> dict[int, int]:
    stage_map = c.line_map.get(machine, {})
    peak: dict[int, int] = {}
    for number, registers in live.items():
        for line in _own_lines(c, stage_map.get(number, ())):
            peak[line] = max(peak.get(line, 0), registers)
    return peak


def _conversions(c: Compilation, costs: dict[int, LineCost], module: ttgir.Module) -> dict[int, tuple[Conversion, ...]]:
    stage_map = c.line_map.get(Stage.TTGIR, {})
    found: dict[int, list[Conversion]] = {}
    for op in module.ops:
        if op.name != "ttg.convert_layout":
            continue
        conversion = _conversion(op)
        if conversion is None:
            continue
        lines = _own_lines(c, stage_map.get(op.number, ()))
        # Judged on its innermost line (a helper's own, not the call site's, which holds more code).
        cost = costs.get(lines[0]) if lines else None
        shared = cost is not None and cost.instructions.shared_stores > 0
        for line in lines:
            found.setdefault(line, []).append(Conversion(**{**vars(conversion), "through_shared": shared}))
    return {line: tuple(items) for line, items in found.items()}


def _conversion(op: ttgir.Op) -> Conversion | None:
    before, _, after = op.text.partition("->")
    source, destination = layouts.tensor_type(before), layouts.tensor_type(after)
    held = ttgir.value_type(after)  # a tensor of pointers moves its 64-bit addresses, not its pointees
    if source is None or destination is None or held is None:
        return None
    element, bits = held
    size = max(bits // 8, 1)
    for dim in destination[0]:
        size *= dim
    return Conversion(op.number, destination[0], element, size, _short(source[1]), _short(destination[1]), False)


def _short(layout: str) -> str:
    """A layout as a reader scans it: an alias as it is, an inline layout by its kind (`#ttg.dot_op`)."""
    return layout if "<" not in layout else layout.split("<", 1)[0]


def source_texts(c: Compilation) -> dict[int, str]:
    """The kernel file's lines by number: the kernel's own source, and the rest of the file where it can be read."""
    texts: dict[int, str] = {}
    path = Path(c.kernel.file)
    if path.is_file():
        try:
            texts = dict(enumerate(path.read_text(errors="replace").splitlines(), start=1))
        except OSError:
            texts = {}
    for offset, code in enumerate(c.kernel.source.splitlines()):
        texts[c.kernel.first_line + offset] = code
    return texts
