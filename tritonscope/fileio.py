"""Writing files whole or not at all: under a temporary name beside them, then a rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import UsageError


def write_text_atomically(path: Path, text: str) -> None:
    """Writes a file under a temporary name beside it, then renames it: never half a file."""
    path = path.resolve()
    if path.is_dir():
        raise UsageError(f"{path} is a directory; give a file name such as report.html")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def user_cache_dir() -> Path:
    """Where tritonscope keeps what outlives one run but not the installation ($XDG_CACHE_HOME)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tritonscope"
