"""`samples`, `list` and `cache list`: what there is to look at."""

from __future__ import annotations

from pathlib import Path

from ..captures.entries import default_dir, scan
from ..captures.logs import simulation_records
from ..core import samples as bundled
from ..core.source import CaptureFolder, Source
from ..core.targets import Target
from ..results.cache import CacheListing
from ..results.catalog import KernelList, SamplesResult


def samples() -> SamplesResult:
    return SamplesResult(tuple(bundled.all_samples()))


def list_kernels(source: Source, target: Target | None) -> KernelList | CacheListing:
    """A file's kernels; a capture folder's (or a Triton cache's) compiled kernels, as `cache list`
    gives them (any other folder: load_file's error, that it is no kernel file)."""
    from .walk.load import load_file  # imports Triton: `samples` and `cache list`, which import this module, need none

    if isinstance(source, CaptureFolder) and scan(source.folder)[0]:
        return cache_list(source.folder)
    loaded = load_file(source, target)
    kernels = tuple(k.spec.as_the_file_gives(loaded.defaults) for k in loaded.kernels)
    return KernelList(loaded.path, kernels, dict(loaded.defaults), loaded.notices)


def cache_list(folder: Path | None) -> CacheListing:
    folder = folder or default_dir()
    found, problems = scan(folder)
    autotune, simulated = simulation_records(folder)
    return CacheListing(folder, tuple(found), tuple(problems), autotune, simulated)
