"""Triton's stages handed over as they are made, the binary last.

Triton files each stage's text in its cache entry as the stage ends. Within `as_filed(callback)`,
each compile calls `callback(files, whole)` as each stage after the first starts: the text files
filed so far ({"ttir": path, ...}), and whether they are all those before the binary (`whole`: the
binary stage starts, ptxas making the cubin or the AMD linker the hsaco, a tool run in a process
of its own: a third of a small kernel's compile, seconds for a large one). The call only names
the files: whoever shows them reads them, in a process of its own (the explorer's), so the
compile is not slowed. The explorer shows each stage so while Triton makes the next.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from . import runtime

Callback = Callable[[dict[str, str], bool], None]  # (the text files filed so far, whole)

BINARY_STAGES = ("cubin", "hsaco")
_NOT_TEXT = {*BINARY_STAGES, "json"}
_listening = threading.local()  # per thread (a compile's): the callbacks of its `as_filed` blocks


def _callbacks() -> list[Callback]:
    if not hasattr(_listening, "callbacks"):
        _listening.callbacks = []
    return _listening.callbacks


@contextlib.contextmanager
def as_filed(callback: Callback | None) -> Iterator[None]:
    """Compiles within it name their stages' files to `callback` as they are made (None: nothing to do)."""
    if callback is None:
        yield
        return
    _callbacks().append(callback)
    try:
        yield
    finally:
        _callbacks().remove(callback)


def hook(stages: dict) -> None:
    """A stage hook (shims.STAGE_HOOKS): each stage after the first names the files filed before it
    as it starts, in a pipeline that ends in a binary (a tool's run)."""
    if not any(name in BINARY_STAGES for name in stages):
        return
    for name, run in list(stages.items())[1:]:
        stages[name] = _naming_files(run, whole=name in BINARY_STAGES)


def _naming_files(run: Callable, whole: bool) -> Callable:
    def stage(src, metadata):
        files = _filed(metadata) if _callbacks() else {}
        if files:
            with contextlib.suppress(Exception):  # the callback's failure is not the compile's
                _callbacks()[-1](files, whole)
        return run(src, metadata)

    return stage


def _filed(metadata: dict[str, Any]) -> dict[str, str]:
    """The text files Triton has filed in its cache entry of this compile ({"ttir": path, ...}), by
    their extensions as `CompiledKernel.asm` names them; {} where they are not files there (a
    cache manager of another kind, TRITON_STORE_BINARY_ONLY)."""
    import triton  # type: ignore[import-untyped]

    folder = runtime.cache_entry(metadata["hash"]) if "hash" in metadata else None
    if folder is None or getattr(triton.knobs.cache, "manager_class", None):
        return {}
    with contextlib.suppress(OSError):
        return {
            path.suffix[1:]: str(path)
            for path in folder.iterdir()
            if path.suffix[1:] and path.suffix[1:] not in _NOT_TEXT and not path.name.startswith("__grp__")
        }
    return {}
