"""Writes a compilation as files: one per stage, the binary, and report.json. All or nothing."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..errors import UsageError
from ..model import Compilation, Stage
from . import json_report


def check_destination(out_dir: Path, force: bool) -> None:
    """Refuses a destination that is a file, or a non-empty directory without --force."""
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {out_dir}: exists and is not a directory")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise UsageError(f"--out {out_dir}: directory is not empty", hint="use --force to replace its contents")


def file_names(compilation: Compilation) -> dict[str, str | bytes]:
    """File name -> content, for every stage, the binary and the JSON report."""
    base = compilation.variant.kernel
    files: dict[str, str | bytes] = {}
    for stage, text in compilation.stages.items():
        name = f"{base}.source.py" if stage is Stage.SOURCE else f"{base}{stage.extension}"
        files[name] = text
    files[f"{base}.{compilation.binary_ext}"] = compilation.binary
    files["report.json"] = json_report.render(compilation)
    return files


def write(compilation: Compilation, out_dir: Path, force: bool) -> list[Path]:
    """Writes every file into a temporary sibling directory, then swaps it into place."""
    check_destination(out_dir, force)
    out_dir = out_dir.resolve()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        for name, content in file_names(compilation).items():
            path = staging / name
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)
        os.chmod(staging, 0o755)
        _swap_into_place(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return sorted(out_dir.iterdir())


def _swap_into_place(staging: Path, out_dir: Path) -> None:
    if not out_dir.exists():
        staging.rename(out_dir)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old.", dir=out_dir.parent))
    old.rmdir()
    out_dir.rename(old)
    try:
        staging.rename(out_dir)
    except BaseException:
        old.rename(out_dir)
        raise
    shutil.rmtree(old, ignore_errors=True)
