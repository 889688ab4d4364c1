"""`layout`: which thread holds which element."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..analysis.layouts import Layout, Ownership
from ..core.status import ExitStatus


@dataclass(frozen=True)
class LayoutResult:
    kind: ClassVar[str] = "layout"
    layout: Layout
    ownership: Ownership
    origin: str | None = None  # where a layout taken from a kernel's TTGIR came from

    @property
    def exit_status(self) -> ExitStatus:
        return ExitStatus.SUCCESS
