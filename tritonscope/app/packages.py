"""Where a kernel file sits among Python packages: its dotted module name, found without importing.

A file inside a package (`site-packages/unsloth/kernels/rms_layernorm.py`, with `__init__.py`
files up the folders) imports its neighbours relatively (`from .utils import x`), so it must be
imported as `unsloth.kernels.rms_layernorm`, not as a lone file. A module reference on the
command line (`unsloth.kernels.rms_layernorm:_rms_layernorm_forward`) names such a file.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ..core.errors import KernelFileError

_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


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


def is_module_reference(given: str) -> bool:
    """`pkg.mod` or `pkg.mod:kernel`: a dotted name that is not a path to an existing file."""
    module, _, kernel = given.partition(":")
    dotted = bool(_DOTTED.fullmatch(module)) and (not kernel or kernel.isidentifier())
    return dotted and "." in module and not Path(given).exists() and not module.endswith(".py")


def file_of(module: str) -> Path:
    """The file of a dotted module name, found on sys.path without importing anything."""
    parts = module.split(".")
    for entry in sys.path:
        base = Path(entry or ".").joinpath(*parts)
        for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate.resolve()
    raise KernelFileError(
        f"no module {module} on Python's path (a module reference is pkg.module:kernel)",
        hint="give the kernel file's path instead, or install the package in this environment",
    )
