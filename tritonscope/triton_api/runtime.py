"""Triton's run-time side: its cache folder, timing, and what the driver says of a loaded kernel."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    """Triton's cache: TRITON_CACHE_DIR, else ~/.triton/cache (`knobs.cache.dir` since 3.5)."""
    from triton import knobs

    return Path(knobs.cache.dir)


def cache_entry(key: str) -> Path | None:
    """The folder of Triton's cache that holds the compile of `key` (Triton's hash of it, as
    `get_cache_manager` names its folder: in base32); None on a release that names it otherwise."""
    from triton.runtime import cache  # type: ignore[import-untyped]

    base32 = getattr(cache, "_base32", None)
    return cache_dir() / base32(key) if base32 else None


def do_bench(fn) -> float:
    """The median time of `fn` in milliseconds, warm-up excluded, timed with CUDA events."""
    from triton.testing import do_bench as triton_do_bench

    return triton_do_bench(fn, return_mode="median")


def last_compiled(jits: list[Any], device: int):
    """The newest kernel Triton compiled and loaded for one of `jits` on `device`, with its driver
    handles initialised (n_regs, n_spills), or None. `device_caches` since 3.3."""
    newest = None
    for jit in jits:
        cache = jit.device_caches.get(device, ({},))[0]
        if cache:
            newest = list(cache.values())[-1]
    if newest is not None:
        newest._init_handles()
    return newest
