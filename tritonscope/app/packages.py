"""Where a kernel file sits among Python packages: its dotted module name, found without importing.

A file inside a package (`site-packages/unsloth/kernels/rms_layernorm.py`, with `__init__.py`
files up the folders) imports its neighbours relatively (`from .utils import x`), so it must be
imported as `unsloth.kernels.rms_layernorm`, not as a lone file. A module reference on the
command line (`unsloth.kernels.rms_layernorm:_rms_layernorm_forward`) names such a file
(core/source.py finds it).
"""

from __future__ import annotations

import sys
from pathlib import Path


def module_name(path: Path) -> str | None:
    """`pkg.sub.mod` for a file in a folder holding `__init__.py` (up to the outermost such folder),
    else None: a lone file is imported on its own. None too when a folder is no identifier, or the
    package's top name is already taken in this process by another package (such as `triton`)."""
    folder = path.parent
    if not (folder / "__init__.py").is_file():
        return None
    parts = [] if path.stem == "__init__" else [path.stem]
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    if not all(part.isidentifier() for part in parts):
        return None
    taken = sys.modules.get(parts[0])
    if taken is not None and not str(Path(getattr(taken, "__file__", "") or "/").resolve()).startswith(str(folder)):
        return None
    return ".".join(parts)


def root(path: Path, name: str | None) -> Path:
    """The folder to put on the path to import the file by `name` (the file's own folder if None)."""
    folder = path.parent
    if name is not None:
        for _ in range(name.count(".") + (1 if path.stem == "__init__" else 0)):
            folder = folder.parent
    return folder
