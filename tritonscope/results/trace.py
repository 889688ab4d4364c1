"""`trace` and `reproduce`: a program's kernels captured, and one launch of them written back out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ..core.status import ExitStatus
from .base import Result


@dataclass(frozen=True)
class TraceResult(Result):
    kind: ClassVar[str] = "trace"
    out: Path
    kernels: tuple[str, ...]
    returncode: int
    launches: int = 0  # launches recorded, all kernels together
    target: str | None = None  # the simulated GPU's target (trace --target), None for the local GPU
    stopped: str | None = None  # where and why the program was stopped (a value read on a simulated GPU)
    on_read: str = "host"  # --values: how a value read on a simulated GPU was answered (host, stop, a number)
    answered: tuple[str, ...] = ()  # each value read answered: "FILE:LINE: what was asked"
    interrupted: bool = False  # Ctrl-C ended the program: the capture holds what it recorded before
    compiles: int = 0  # compiles recorded: a kernel compiled again counts each time
    binaries: int = 0  # the distinct binaries they made (a compile may make one made before)
    written: bool = True  # False: the program failed before it compiled a kernel, and `out` was not written

    @property
    def exit_status(self) -> int:
        """The traced program's own status, passed through (a shell sees how the program ended); 2
        when a simulated GPU stopped it (a value read); 130 when Ctrl-C ended it."""
        if self.interrupted:
            return int(ExitStatus.INTERRUPTED)
        if self.stopped:
            return int(ExitStatus.USAGE)
        # A program killed by signal N has returncode -N: a shell says 128 + N (137 for SIGKILL),
        # where passing -N to exit() would give 256 - N (247).
        return 128 - self.returncode if self.returncode < 0 else self.returncode


@dataclass(frozen=True)
class ReproduceResult(Result):
    kind: ClassVar[str] = "reproduce"
    reference: str
    kernel: str
    number: int  # which recorded launch, from 1
    launches: int  # how many were recorded
    launch: dict[str, Any]  # the launch record (core/launches.py)
    script: str
    dump_command: str  # the dump line that specializes the kernel as that launch did
    notes: tuple[str, ...] = ()
    source_file: str = ""  # the kernel's file, as the capture recorded it
