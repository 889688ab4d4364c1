"""`dump` and `compare`: one compilation's stages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..analysis.scoreboards import Schedule
from ..core.model import Compilation
from ..core.stages import SourceLine, Stage
from .base import Result


@dataclass(frozen=True)
class DumpResult(Result):
    kind: ClassVar[str] = "dump"
    compilation: Compilation
    stages: tuple[Stage, ...]  # the stages asked for, in pipeline order
    source_lines: frozenset[SourceLine] | None = None  # only what these Python lines became
    schedule: Schedule | None = None  # --control: each SASS instruction's control code and waits
    named: bool = False  # the stages were named (--stage, stages=), not every one by default


@dataclass(frozen=True)
class CompareResult(DumpResult):
    """`compare`: the same stages, side by side; its own kind of document."""

    kind: ClassVar[str] = "compare"
