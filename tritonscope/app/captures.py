"""Whole captures (`trace -o DIR`, or a Triton cache folder) read as sets of kernels: opened and
checked, each compile summarized from its artifacts (in parallel workers: cuobjdump and one
nvdisasm run per worker), nothing recompiled.

`diff DIR1/ DIR2/`, `diff DIR/ --vary triton=A,B` and `check DIR/` start here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

from ..analysis.captures import KernelFigures
from ..core.errors import UsageError
from ..isolate import Workers, task
from . import cache, kernel_figures

# Up to this many nvdisasm runs (0.3 s each), a worker's start-up (Python, Triton: 1 s and more on a
# loaded machine) costs more than it saves: benchmarks/capture_diff.py.
IN_PROCESS = 8


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
    if folder.exists() and not folder.is_dir():
        raise UsageError(
            f"{folder}: not a folder, so not a capture", hint="give a folder made by `tritonscope trace -o DIR`"
        )
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
    captures: list[Capture], jobs: int, timeout: float, findings: bool = False
) -> dict[tuple[Path, str], KernelFigures]:
    """Every compile of the captures summarized, keyed by (folder, hash). Identical binaries are read
    once; a binary every capture holds is the same on all sides, and is read fast (its SASS without
    line information, many in one nvdisasm run: explain's findings are not read) unless `findings`."""
    first: dict[str, tuple[Path, str]] = {}
    holders: dict[str, set[Path]] = {}
    for capture in captures:
        for entry in capture.entries:
            first.setdefault(digest(entry), (capture.folder, entry.metadata["hash"]))
            holders.setdefault(digest(entry), set()).add(capture.folder)
    everywhere = {d for d, held in holders.items() if len(held) == len(captures) > 1 and not findings}
    jobs_of = [(key, d in everywhere) for d, key in first.items()]
    by_key = _summarize_all(jobs_of, jobs, timeout)
    out = {}
    for capture in captures:
        for entry in capture.entries:
            made = by_key[first[digest(entry)]]
            out[(capture.folder, entry.metadata["hash"])] = _as_entry(made, capture, entry)
    return out


def _as_entry(made: KernelFigures, capture: Capture, entry: cache.CacheEntry) -> KernelFigures:
    """A summary read from an identical binary, with this entry's own name, hash, source and launches."""
    return replace(made, **kernel_figures.keys(capture.folder, entry))


def _summarize_all(wanted: list[tuple[tuple[Path, str], bool]], jobs: int, timeout: float) -> dict:
    """{(folder, hash): summary}, read in workers: the fast ones shared out in `jobs` batches, the
    others a few at a time (each is one nvdisasm run)."""
    fast = [key for key, quick in wanted if quick]
    full = [key for key, quick in wanted if not quick]
    chunks = [(c, True) for c in _split(fast, jobs)] + [(c, False) for c in _split(full, max(jobs, len(full) // 4))]
    if len(full) + bool(fast) <= IN_PROCESS or jobs <= 1:
        return {
            k: v for chunk, quick in chunks for k, v in zip(chunk, summarize(_by_folder(chunk), quick), strict=True)
        }
    tasks = [task(summarize, _by_folder(chunk), quick) for chunk, quick in chunks]
    results: dict[tuple[Path, str], KernelFigures] = {}
    with Workers(jobs=min(jobs, len(tasks)), timeout=timeout) as workers:
        workers.warm(count=min(jobs, len(tasks)), preload=__name__)
        for (chunk, _), outcome in zip(chunks, workers.run(tasks), strict=True):
            results.update(zip(chunk, outcome.unwrap(), strict=True))
    return results


def _split(keys: list, parts: int) -> list[list]:
    size = -(-len(keys) // max(parts, 1)) if keys else 1
    return [keys[i : i + size] for i in range(0, len(keys), size)]


def _by_folder(keys: list[tuple[Path, str]]) -> list[tuple[Path, list[str]]]:
    groups: dict[Path, list[str]] = {}
    for folder, hash_ in keys:
        groups.setdefault(folder, []).append(hash_)
    return list(groups.items())


def summarize(groups: list[tuple[Path, list[str]]], quick: bool = False) -> list[KernelFigures]:
    """In a worker: the summaries of some compiles of some captures, in the order given (`_by_folder`)."""
    return [figures for folder, hashes in groups for figures in summarize_folder(folder, hashes, quick)]


def summarize_folder(folder: Path, hashes: list[str], quick: bool = False) -> list[KernelFigures]:
    """The compiles `hashes` of one capture summarized. Each is disassembled with its line information
    (explain's findings are placed by line), which nvdisasm keeps beside Triton's cache; `quick`: all
    together without it, and no findings."""
    from .prepare import Undisassembled, finish

    by_hash = {e.metadata["hash"]: e for e in cache.entries(folder)}
    entries = [by_hash[h] for h in hashes]
    if quick:
        parts = [Undisassembled(*cache.entry_parts(e, _reference(folder, e), [], sass=False), ()) for e in entries]
        compilations = finish(parts)
    else:
        compilations = [cache.entry_compilation(e, _reference(folder, e)) for e in entries]
    return [
        KernelFigures(**kernel_figures.of(c, findings=not quick), **kernel_figures.keys(folder, e))
        for e, c in zip(entries, compilations, strict=True)
    ]


def _reference(folder: Path, entry: cache.CacheEntry) -> str:
    return f"{folder}/:{entry.name}"
