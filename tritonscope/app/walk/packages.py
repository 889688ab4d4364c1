"""Where a kernel file sits among Python packages: its dotted module name, found without importing.

A file inside a package (`site-packages/unsloth/kernels/rms_layernorm.py`, with `__init__.py`
files up the folders) imports its neighbours relatively (`from .utils import x`), so it must be
imported as `unsloth.kernels.rms_layernorm`, not as a lone file. Below a regular package, a folder
without `__init__.py` is a namespace package (PEP 420) that Python imports all the same: OpenAI's
triton_kernels keeps most of its kernels in such folders (`triton_kernels/matmul_ogs_details/`).
A module reference on the command line (`unsloth.kernels.rms_layernorm:_rms_layernorm_forward`)
names its module itself (core/source.py finds its file).
"""

from __future__ import annotations

import sys
from pathlib import Path


def module_name(path: Path) -> str | None:
    """`pkg.sub.mod` for a file below a regular package (a folder holding `__init__.py`), up to the
    outermost of the regular packages that hold one another, through the namespace folders between
    the file and the nearest of them. None for a lone file (no regular package above it), and where
    Python could not import it so: a folder on the way is no identifier, or the package's top name
    is already taken in this process by another package (such as `triton`)."""
    folders = list(path.parents)[:-1]  # nearest first; the filesystem's root is no package
    nearest = next((i for i, folder in enumerate(folders) if _is_regular_package(folder)), None)
    if nearest is None:
        return None
    top = nearest
    while top + 1 < len(folders) and _is_regular_package(folders[top + 1]):
        top += 1
    parts = [folder.name for folder in reversed(folders[: top + 1])]
    if path.stem != "__init__":
        parts.append(path.stem)
    if not all(part.isidentifier() for part in parts):
        return None
    taken = sys.modules.get(parts[0])
    above = str(folders[top].parent)
    if taken is not None and not str(Path(getattr(taken, "__file__", "") or "/").resolve()).startswith(above):
        return None
    return ".".join(parts)


def root(path: Path, name: str | None) -> Path:
    """The folder to put on the path to import the file by `name` (the file's own folder if None)."""
    folder = path.parent
    if name is not None:
        for _ in range(name.count(".") + (1 if path.stem == "__init__" else 0)):
            folder = folder.parent
    return folder


def _is_regular_package(folder: Path) -> bool:
    return (folder / "__init__.py").is_file()
