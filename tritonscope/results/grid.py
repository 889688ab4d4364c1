"""`grid`: every program of a launch and the memory each touches, from Triton's interpreter."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..core.model import Variant
from .base import Result


@dataclass(frozen=True)
class Access:
    param: str  # the pointer parameter it goes through
    runs: list[list[int]]  # element offsets as [start, end) runs, in order
    count: int

    @property
    def key(self) -> tuple:
        return self.param, tuple(map(tuple, self.runs))


@dataclass(frozen=True)
class Program:
    index: int  # linear launch order: x fastest, as GPUs launch them
    pid: tuple[int, int, int]
    loads: list[Access]
    stores: list[Access]


@dataclass(frozen=True)
class GridResult(Result):
    kind: ClassVar[str] = "grid"
    variant: Variant
    size: tuple[int, ...]
    programs: tuple[Program, ...]
    wave: int | None = None
    wave_loads: dict[str, int] | None = None  # distinct input tiles the first `wave` programs load


def tile_of(access: Access) -> tuple[int, int, int, int] | None:
    """(first row, first column, rows, columns) of a 2-D tile written as equal runs, in elements of
    a row-major matrix whose row stride is the distance between runs; None for one run."""
    if len(access.runs) < 2:
        return None
    stride = access.runs[1][0] - access.runs[0][0]
    width = access.runs[0][1] - access.runs[0][0]
    row, column = divmod(access.runs[0][0], stride)
    return row, column, len(access.runs), width
