"""Whole captures (`trace -o DIR`, or a Triton cache folder) read as sets of kernels: opened and
checked, each compile summarized from its artifacts (in parallel workers: cuobjdump and one
nvdisasm run per worker), nothing recompiled.

`diff DIR1/ DIR2/`, `diff DIR/ --vary triton=A,B` and `check DIR/` start here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..analysis.captures import KernelFigures
from ..core.errors import UsageError
from ..isolate import Task, Workers
from . import cache, kernel_figures

SUMMARY_TASK = "tritonscope.app.captures:summarize"
IN_PROCESS = 6  # up to this many compiles to read, a worker's start-up costs more than it saves


@dataclass(frozen=True)
class Capture:
    folder: Path
    entries: tuple[cache.CacheEntry, ...]  # oldest first
    captured: bool  # a `trace` capture (kernels.jsonl), not a bare Triton cache

    @property
    def targets(self) -> list[str]:
        return sorted({e.target for e in self.entries})

    @property
    def releases(self) -> list[str]:
        return sorted({str(e.metadata.get("triton_version", "?")) for e in self.entries})


def open_capture(given: str | Path) -> Capture:
    """A capture or Triton cache folder, checked whole: one clear message if it is not one, or damaged."""
    folder = Path(given)
    if not folder.is_dir():
        raise UsageError(f"{folder}: no such directory", hint="give a folder made by `tritonscope trace -o DIR`")
    found, problems = cache.scan(folder)
    captured = (folder / cache.CAPTURE_LOG).exists()
    if not found and not problems:
        raise UsageError(
            f"{folder}: not a capture: it has no {cache.CAPTURE_LOG} and no compiled kernels",
            hint="make one with `tritonscope trace -o DIR -- python prog.py` (or give a TRITON_CACHE_DIR)",
        )
    problems += _missing(folder, found, captured)
    if problems:
        shown = "\n  ".join(problems[:8]) + (f"\n  ... and {len(problems) - 8} more" if len(problems) > 8 else "")
        raise UsageError(
            f"{folder}: a damaged capture ({len(problems)} problem{'s' if len(problems) > 1 else ''}):\n  {shown}",
            hint="trace the program again, or restore the folder from where it is kept",
        )
    return Capture(folder, tuple(sorted(found, key=lambda e: (e.name, e.metadata["hash"]))), captured)


def _missing(folder: Path, found: list[cache.CacheEntry], captured: bool) -> list[str]:
    """Compiles the capture's log names whose artifacts are gone, and entries without their binary."""
    problems = []
    have = {e.metadata.get("hash") for e in found}
    if captured:
        logged, _ = cache._capture_log(folder)
        problems += [
            f"{folder / cache.CAPTURE_LOG}: compile {h[:12]} ({r.get('name')}) has no artifacts in cache/"
            for h, r in logged.items()
            if h not in have
        ]
    for e in found:
        binary = "hsaco" if e.target.startswith("gfx") else "cubin"
        if binary not in e.stages:
            problems.append(f"{e.folder}: {e.name}.{binary} is missing")
    return problems


def digest(entry: cache.CacheEntry) -> str:
    """Compiles with the same binary and name have the same figures: read once for both captures."""
    binary = next((entry.path(k) for k in ("cubin", "hsaco") if k in entry.stages), None)
    data = binary.read_bytes() if binary else entry.metadata["hash"].encode()
    return hashlib.sha256(entry.name.encode() + b"\0" + data).hexdigest()


def summaries(
    captures: list[Capture], jobs: int, timeout: float, on_done: Callable | None = None
) -> dict[tuple[Path, str], KernelFigures]:
    """Every compile of the captures summarized, keyed by (folder, hash); identical binaries once."""
    first: dict[str, tuple[Path, str]] = {}
    for capture in captures:
        for entry in capture.entries:
            first.setdefault(digest(entry), (capture.folder, entry.metadata["hash"]))
    unique = list(first.values())
    read = _summarize_all(unique, jobs, timeout, on_done)
    by_key = dict(zip(unique, read, strict=True))
    out = {}
    for capture in captures:
        for entry in capture.entries:
            made = by_key[first[digest(entry)]]
            out[(capture.folder, entry.metadata["hash"])] = _as_entry(made, capture, entry)
    return out


def _as_entry(made: KernelFigures, capture: Capture, entry: cache.CacheEntry) -> KernelFigures:
    """A summary read from an identical binary, with this entry's own name, hash, source and launches."""
    return replace(made, **kernel_figures.keys(capture.folder, entry))


def _summarize_all(keys: list[tuple[Path, str]], jobs: int, timeout: float, on_done) -> list[KernelFigures]:
    if len(keys) <= IN_PROCESS or jobs <= 1:
        groups = _by_folder(keys)
        return _in_order(keys, {k: v for folder, hashes in groups for k, v in _keyed(folder, hashes)})
    size = -(-len(keys) // jobs)
    chunks = [keys[i : i + size] for i in range(0, len(keys), size)]
    tasks = [Task(SUMMARY_TASK, (_by_folder(chunk),)) for chunk in chunks]
    results: dict[tuple[Path, str], KernelFigures] = {}
    with Workers(jobs=min(jobs, len(tasks)), timeout=timeout) as workers:
        for chunk, outcome in zip(chunks, workers.run(tasks), strict=True):
            for key, value in zip(chunk, outcome.unwrap(), strict=True):
                results[key] = value
            if on_done:
                on_done(len(chunk))
    return _in_order(keys, results)


def _by_folder(keys: list[tuple[Path, str]]) -> list[tuple[Path, list[str]]]:
    groups: dict[Path, list[str]] = {}
    for folder, hash_ in keys:
        groups.setdefault(folder, []).append(hash_)
    return list(groups.items())


def _keyed(folder: Path, hashes: list[str]):
    return zip([(folder, h) for h in hashes], summarize_folder(folder, hashes), strict=True)


def _in_order(keys, results):
    return [results[k] for k in keys]


def summarize(groups: list[tuple[Path, list[str]]]) -> list[KernelFigures]:
    """In a worker: the summaries of some compiles of some captures, in the order given."""
    return [figures for folder, hashes in groups for figures in summarize_folder(folder, hashes)]


def summarize_folder(folder: Path, hashes: list[str]) -> list[KernelFigures]:
    """The compiles `hashes` of one capture summarized. Each is disassembled with its line information
    (explain's findings are placed by line), which nvdisasm keeps beside Triton's cache."""
    by_hash = {e.metadata["hash"]: e for e in cache.entries(folder)}
    summaries = []
    for h in hashes:
        entry = by_hash[h]
        compilation = cache.entry_compilation(entry, _reference(folder, entry))
        summaries.append(KernelFigures(**kernel_figures.of(compilation), **kernel_figures.keys(folder, entry)))
    return summaries


def _reference(folder: Path, entry: cache.CacheEntry) -> str:
    return f"{folder}/:{entry.name}"
