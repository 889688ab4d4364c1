"""Output files and folders: written whole or not at all, never over what tritonscope did not write."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from ...core import fileio
from ...core.errors import UsageError
from ...core.source import own_paths
from ..app import say


@dataclass
class Folder:
    path: Path
    files: dict[str, bytes] = field(default_factory=dict)


@contextlib.contextmanager
def write_folder(out: Path | None, force: bool, *protected: str):
    """Checks OUT first (before a slow compile), lets the caller fill `files`, then swaps them in.
    Nothing is written when the body fails, is interrupted or is killed by SIGTERM."""
    if out is None:
        yield None
        return
    staging = fileio.prepare_output_dir(out, force, own_paths(protected))
    folder = Folder(out)
    try:
        yield folder
        for name, content in folder.files.items():
            try:
                (staging / name).write_bytes(content)
            except OSError as exc:
                raise UsageError(f"--out {out}: could not write {name}: {exc.strerror or exc}") from None
        fileio.publish_output_dir(staging, out)
    except BaseException:
        fileio.discard(staging)
        fileio.discard_own(out)
        raise
    say(f"wrote {len(folder.files)} files to {out}")


def write_page(path: Path, page: str, flag: str, *protected: str) -> None:
    """Writes one output file through the one writer (which refuses what the run reads)."""
    fileio.write_output(path, page.encode(), flag, tuple(own_paths(protected)))
    say(f"wrote {path}")
