"""Where a kernel file sits among Python packages: its dotted module name, found without importing.

A file inside a package (`site-packages/unsloth/kernels/rms_layernorm.py`, with `__init__.py`
files up the folders) imports its neighbours relatively (`from .utils import x`), so it must be
imported as `unsloth.kernels.rms_layernorm`, not as a lone file. Below a regular package, a folder
without `__init__.py` is a namespace package (PEP 420) that Python imports all the same: OpenAI's
triton_kernels keeps most of its kernels in such folders (`triton_kernels/matmul_ogs_details/`).
A module reference on the command line (`unsloth.kernels.rms_layernorm:_rms_layernorm_forward`)
names its module itself (core/source.py finds its file). The user's own files a kernel file imports
(`helper_files`) are found from the same folders: what the explorer and --watch follow, and what a
load in the same process reads again when one changed.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from ...core.pysource import local_imports
from ...core.source import Source, depends_on, local_file


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


Version = tuple[Path, int, int]  # a file, its modification time (ns) and its size
_helpers: dict[Path, tuple[tuple[Version, ...], tuple[Path, ...]]] = {}  # a kernel file's, as last read


def helper_files(path: Path, module: str | None = None) -> tuple[Path, ...]:
    """The user's own Python files a kernel file imports, directly or through one another
    (core/pysource.local_imports); read again only when one of them or the file changed."""
    path = path.resolve()
    known = _helpers.get(path)
    if known is not None and versions((path, *known[1])) == known[0]:
        return known[1]
    name = module or module_name(path)
    found = () if _installed(path) else local_imports(path, (root(path, name),), _own_folder(path, name))
    _helpers[path] = (versions((path, *found)), found)
    return found


def source_helpers(source: Source) -> tuple[str, ...]:
    """The helper files of the file a source is read from (none for a compiled kernel or a folder): what
    a watch, the explorer and the agent server's kept answers follow besides the file itself."""
    file = local_file(source)
    return tuple(str(f) for f in helper_files(file)) if file is not None else ()


def answer_inputs(source: Source) -> tuple[str, ...]:
    """What an answer on this source depends on (isolate/session.py keeps it while they are unchanged):
    the file or folder, and the helper files the file imports, wherever they sit (a package's subfolder)."""
    return (*depends_on(source), *source_helpers(source))


def versions(files) -> tuple[Version, ...]:
    """Each file with its modification time and size (a file gone is left out)."""
    found = []
    for file in files:
        with contextlib.suppress(OSError):
            stat = file.stat()
            found.append((file, stat.st_mtime_ns, stat.st_size))
    return tuple(found)


def _installed(path: Path) -> bool:
    """A file of an installed package: the user edits none of it, and its imports reach the others'."""
    return any(part in ("site-packages", "dist-packages") for part in path.parts)


def _own_folder(path: Path, name: str | None) -> Path:
    """Where the user's own files are: a lone file's folder, or its outermost package's."""
    return path.parent if name is None else root(path, name) / name.split(".")[0]
