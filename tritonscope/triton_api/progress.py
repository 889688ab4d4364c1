"""Which step of a compile runs now, told as it starts: one line per step appended to a file,
which the explorer's status line reads while the compile runs in its child process.

Triton's stages are wrapped through its pipeline hook (`STAGE_HOOKS`, since 3.6); with an older
Triton only the steps tritonscope itself runs are told.
"""

from __future__ import annotations

from pathlib import Path

from .shims import STAGE_HOOKS

STAGE_STEPS = {"ttir": "TTIR passes", "ttgir": "TTGIR passes", "llir": "LLVM IR", "ptx": "PTX", "cubin": "ptxas"}
_told: list[Path | None] = [None]  # the file the current compile tells its steps to


def tell(step: str) -> None:
    """Says that `step` starts now (nothing when no file was given: a compile of another command)."""
    path = _told[0]
    if path is not None:
        with open(path, "a", encoding="utf-8") as file:
            file.write(step + "\n")


def telling(path: str | None) -> None:
    """The next compiles of this process tell their steps to `path` (None: to no one)."""
    _told[0] = Path(path) if path else None
    if _hook not in STAGE_HOOKS:
        STAGE_HOOKS.append(_hook)


def _hook(stages: dict) -> None:
    for name, make in list(stages.items()):
        stages[name] = _announced(STAGE_STEPS.get(name, name), make)


def _announced(step: str, make):
    def stage(src, metadata):
        tell(step)
        return make(src, metadata)

    return stage
