"""`layout`: which thread holds which element."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..analysis.layouts import Layout, Ownership
from ..analysis.module_layouts import SharedAccess, UsedLayout
from .base import Result


@dataclass(frozen=True)
class LayoutResult(Result):
    kind: ClassVar[str] = "layout"
    layout: Layout
    ownership: Ownership
    origin: str | None = None  # where a layout taken from a kernel's TTGIR came from


@dataclass(frozen=True)
class LayoutListResult(Result):
    """`layout --from FILE -k KERNEL` alone: every layout the kernel's TTGIR uses, with its Python
    lines, and every move between registers and shared memory with its bank conflicts."""

    kind: ClassVar[str] = "layout_list"
    kernel: str
    language: str  # triton or gluon: whether the author or the compiler chose the layouts
    target: str
    layouts: tuple[UsedLayout, ...]
    accesses: tuple[SharedAccess, ...]


@dataclass(frozen=True)
class SharedLayoutResult(Result):
    """A shared-memory layout drawn as the bank of each element, with the accesses that use it."""

    kind: ClassVar[str] = "shared_layout"
    layout: str  # its TTGIR text
    gluon: str | None  # as Gluon spells it: SwizzledSharedLayout(vec=1, ...); None where it cannot (3.5)
    shape: tuple[int, ...]
    bits: int  # element width
    banks: dict[tuple[int, ...], int] | None  # None where neither Triton nor tritonscope can lay it out
    accesses: tuple[SharedAccess, ...]
    origin: str
    # Who laid the elements out: "triton" (its shared linear layout, 3.9 on), "tritonscope" (the same
    # rules, read from the layout's parameters: analysis/shared_layouts.py), or None (not drawn).
    banks_from: str | None = None
