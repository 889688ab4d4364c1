"""Whole captures' compiles (captures/folder.py opens them) each summarized from its artifacts (in
parallel workers: cuobjdump and one nvdisasm run per worker), nothing recompiled: what
`diff DIR1/ DIR2/` and `check DIR/` compare.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

from ..analysis.capture_pairs import KernelFigures
from ..captures.compiled import entry_compilation, entry_parts
from ..captures.entries import CacheEntry, entries
from ..captures.folder import Capture
from ..isolate import Workers, task
from . import kernel_figures

# Up to this many nvdisasm runs (0.3 s each), a worker's start-up (Python, Triton: 1 s and more on a
# loaded machine) costs more than it saves: benchmarks/capture_diff.py.
IN_PROCESS = 8


def digest(entry: CacheEntry) -> str:
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


def _as_entry(made: KernelFigures, capture: Capture, entry: CacheEntry) -> KernelFigures:
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
    from .walk.prepare import Undisassembled, finish

    by_hash = {e.metadata["hash"]: e for e in entries(folder)}
    wanted = [by_hash[h] for h in hashes]
    if quick:
        parts = [Undisassembled(*entry_parts(e, _reference(folder, e), [], sass=False), ()) for e in wanted]
        compilations = finish(parts)
    else:
        compilations = [entry_compilation(e, _reference(folder, e)) for e in wanted]
    return [
        KernelFigures(**kernel_figures.of(c, findings=not quick), **kernel_figures.keys(folder, e))
        for e, c in zip(wanted, compilations, strict=True)
    ]


def _reference(folder: Path, entry: CacheEntry) -> str:
    return f"{folder}/:{entry.name}"
