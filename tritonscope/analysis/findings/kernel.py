"""What every detector reads: one compilation with its target, its TTGIR read once as ops, the cost
of each Python line and its estimated share of the time (read when first asked), the registers
live on each machine-code line and the moves through shared memory. The last two come from
outside analysis/ (nvdisasm's life ranges; Triton's layout readers,
in a worker), so the app reads them and says here why one is missing (`unread`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from ...core.model import Compilation
from ...core.stages import Stage
from ...core.targets import Target
from .. import line_time, ttgir
from ..cost import LineCost, line_costs
from ..line_time import TimeEstimate
from ..module_layouts import SharedAccess


class Input(Enum):
    """What the findings read beside the compilation; its value begins the note when it is missing."""

    LIVE_REGISTERS = "registers live per line: not shown"  # nvdisasm's life ranges (NVIDIA)
    SHARED_ACCESSES = "shared-memory accesses: not read"  # with Gluon's bank-conflict counts


@dataclass(frozen=True)
class Kernel:
    compilation: Compilation
    target: Target
    module: ttgir.Module  # the TTGIR, read once (empty where the compile has none)
    lines: tuple[LineCost, ...]  # the cost of each Python line, in order: explain's table
    live_registers: dict[int, int] | None = None  # registers live at each machine-code line; None: not read
    shared_accesses: tuple[SharedAccess, ...] = ()  # moves between registers and shared memory
    unread: dict[Input, str] = field(default_factory=dict)  # why an input is missing
    grid: tuple[int, int, int] | None = None  # a launch's, where known: its tl.num_programs counts loops

    @classmethod
    def of(
        cls,
        c: Compilation,
        live_registers: dict[int, int] | None = None,
        shared_accesses: tuple[SharedAccess, ...] = (),
        unread: dict[Input, str] | None = None,
        grid: tuple[int, int, int] | None = None,
    ) -> Kernel:
        """The context of a compilation, with what the app read for it: TTGIR is parsed here only."""
        target = c.variant.target_info
        module = ttgir.read(c.stages.get(Stage.TTGIR, ""))
        measured = target.vendor.machine_code in c.stages
        lines = line_costs(c, live_registers, module) if measured else ()
        return cls(c, target, module, lines, live_registers, shared_accesses, dict(unread or {}), grid)

    @property
    def c(self) -> Compilation:
        """The compilation (short: the detectors read it on nearly every line)."""
        return self.compilation

    @cached_property
    def time(self) -> TimeEstimate | None:
        """Where the time goes, per line (analysis/line_time.py): None without SASS and its line map."""
        if not self.c.line_map.get(self.target.vendor.machine_code):
            return None
        return line_time.estimate(self.c, grid=self.grid)

    @cached_property
    def costs(self) -> dict[int, LineCost]:
        """The cost of each Python line, by its number."""
        return {cost.line: cost for cost in self.lines}

    @property
    def machine(self) -> str:
        return self.target.vendor.machine_code.title

    def lines_of(self, op: ttgir.Op) -> list[int]:
        """The kernel-file lines of a TTGIR op, the innermost (a helper's own) first."""
        return self.lines_of_number(op.number)

    def lines_of_number(self, number: int) -> list[int]:
        sources = self.c.line_map.get(Stage.TTGIR, {}).get(number, ())
        return list(dict.fromkeys(line for file, line in sources if file == self.c.kernel.file))

    def remark_line(self, remark) -> int | None:
        """The kernel-file line an MLIR remark is about: its own, or the call site of the helper it is in."""
        return next((line for file, line in remark.locations if file == self.c.kernel.file), None)

    def remarks_at(self, line: int) -> list:
        return [r for r in self.c.remarks if self.remark_line(r) == line]
