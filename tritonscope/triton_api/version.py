"""Which Triton is installed, against the releases tritonscope is tested with.

Read from the package's metadata, without importing Triton (which costs time).
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version

from ..core.errors import UsageError

TESTED = ("3.5.1", "3.6.0", "3.7.1", "3.8.0", "3.9.0")  # CI runs every one of them
OLDEST = (3, 5)


def installed() -> str:
    try:
        found = version("triton")
    except PackageNotFoundError:
        raise UsageError("Triton is not installed", hint="pip install triton (3.5 or newer)") from None
    if not found:  # a dist-info without its METADATA: a broken installation
        raise UsageError(
            f"Triton's installation in {sys.prefix} is broken: its package metadata has no version",
            hint="reinstall Triton there (for a release environment: tritonscope envs remove X)",
        )
    return found


def release_tuple(text: str) -> tuple[int, ...]:
    """(3, 9, 0) for 3.9.0, 3.9.0rc1 or 3.9.0+git; the leading numbers only."""
    parts = []
    for piece in text.split("+")[0].split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def notice() -> str | None:
    """A line to show when the installed Triton is newer than every tested one; an error when it is
    older than tritonscope supports."""
    current = installed()
    if release_tuple(current)[:2] < OLDEST:
        raise UsageError(
            f"Triton {current} is older than tritonscope supports (3.5 and newer)", hint="pip install -U triton"
        )
    if release_tuple(current) > max(release_tuple(t) for t in TESTED):
        return f"Triton {current} is newer than the releases tritonscope was tested with ({TESTED[-1]} at most)"
    return None
