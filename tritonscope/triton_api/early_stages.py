"""Triton's stages before its binary, handed over while the binary is made.

The last stage of a compile (ptxas making the cubin, or the AMD linker the hsaco) is a tool run
in a process of its own: a third of a small kernel's compile, seconds for a large one. The texts
before it (TTIR to PTX, or AMDGCN) are in Triton's cache entry by then (it files each stage as it
ends). Within `before_binary(callback)`, each compile calls `callback(texts, metadata)` in a
thread as that stage starts, with those texts and Triton's metadata so far; the stage waits for
the callback at its end. The explorer shows the stages so, while ptxas runs.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from . import runtime

Callback = Callable[[dict[str, str], dict[str, Any]], None]

BINARY_STAGES = ("cubin", "hsaco")
_NOT_TEXT = {*BINARY_STAGES, "json"}
_listening = threading.local()  # per thread (a compile's): the callbacks of its `before_binary` blocks


def _callbacks() -> list[Callback]:
    if not hasattr(_listening, "callbacks"):
        _listening.callbacks = []
    return _listening.callbacks


@contextlib.contextmanager
def before_binary(callback: Callback | None) -> Iterator[None]:
    """Compiles within it hand their texts before the binary to `callback` (None: nothing to do)."""
    if callback is None:
        yield
        return
    _callbacks().append(callback)
    try:
        yield
    finally:
        _callbacks().remove(callback)


def hook(stages: dict) -> None:
    """A stage hook (shims.STAGE_HOOKS): the binary stage hands the texts before it over first."""
    name = next((n for n in reversed(stages) if n in BINARY_STAGES), None)
    if name is None:
        return
    run = stages[name]

    def binary(src, metadata, _run=run):
        thread = _hand_over(dict(metadata)) if _callbacks() else None
        try:
            return _run(src, metadata)
        finally:
            if thread is not None:
                thread.join()

    stages[name] = binary


def _hand_over(metadata: dict[str, Any]) -> threading.Thread | None:
    texts = _filed_texts(metadata)
    if not texts:
        return None
    callback = _callbacks()[-1]
    thread = threading.Thread(target=_quietly, args=(callback, texts, metadata), daemon=True)
    thread.start()
    return thread


def _quietly(callback: Callback, texts: dict[str, str], metadata: dict[str, Any]) -> None:
    """The callback's failure is not the compile's: the whole result comes after it anyway."""
    with contextlib.suppress(Exception):
        callback(texts, metadata)


def _filed_texts(metadata: dict[str, Any]) -> dict[str, str]:
    """The texts Triton has filed in its cache entry of this compile ({"ttir": ..., "ptx": ...}), by
    their extensions as `CompiledKernel.asm` names them; {} where they are not files there (a
    cache manager of another kind, TRITON_STORE_BINARY_ONLY)."""
    import triton  # type: ignore[import-untyped]

    folder = runtime.cache_entry(metadata["hash"]) if "hash" in metadata else None
    if folder is None or getattr(triton.knobs.cache, "manager_class", None):
        return {}
    texts = {}
    with contextlib.suppress(OSError, UnicodeDecodeError):
        for path in folder.iterdir():
            ext = path.suffix[1:]
            if ext and ext not in _NOT_TEXT and not path.name.startswith("__grp__"):
                texts[ext] = path.read_text(encoding="utf-8")
    return texts
