"""`samples`, `list` and `envs list`: what there is to look at."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ..core.model import KernelSpec
from ..core.samples import Sample
from .base import Result


@dataclass(frozen=True)
class SamplesResult(Result):
    kind: ClassVar[str] = "samples"
    samples: tuple[Sample, ...]


@dataclass(frozen=True)
class KernelList(Result):
    kind: ClassVar[str] = "list"
    path: Path
    kernels: tuple[KernelSpec, ...]
    defaults: dict[str, Any]  # the file's tritonscope_defaults
    notices: tuple[str, ...] = ()  # how the file was imported, when not plainly (a simulated GPU, a stop)


@dataclass(frozen=True)
class EnvsListing(Result):
    """`tritonscope envs list`: the Triton releases installed for --triton, and the running one."""

    kind: ClassVar[str] = "envs"
    folder: Path
    running: str
    envs: tuple[tuple[str, Path, int], ...]  # (release, environment folder, bytes on disk)
