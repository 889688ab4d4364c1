"""What a kernel FILE argument names, parsed once where the request is made (`parse`).

The five kinds of source, as a command line, a project file, the explorer or the agent server
gives them:

    path/to/kernels.py          KernelFile       a Python file of kernels
    sample:NAME                 SampleKernel     a bundled sample
    pkg.module[:KERNEL]         ModuleReference  a module on Python's path, not imported to find it
    DIR/:NAME (or DIR:NAME)     CachedKernel     a compiled kernel of a Triton cache or a capture
    DIR/                        CaptureFolder    a capture (`trace -o DIR`) or a Triton cache, whole

and a sixth, which the Python API makes of a kernel object defined in a notebook cell or a REPL:
a `CellKernel`, the kernel's definitions as source text with their cells' file names and lines
(triton_api/cells.py makes it, and makes the kernel again from it in the process that compiles).

Each keeps `given`, the text as typed: messages, command lines and JSON show it. A source is
plain, hashable data that travels inside a VariantRequest to worker processes, other Triton
releases' interpreters and Ray nodes, so what the disk says is settled here, where the request
is made: a kernel file's and a module's path are absolute (a node moves paths under the files'
folder to its copy of them), and whether DIR exists decides a cached kernel or a folder. A sample
is found where it is loaded (another release's worker reaches the samples through a link to this
package, a Ray node through its copy of it). A folder is kept as typed: the process that parsed
it reads it.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .errors import KernelFileError, UsageError

SAMPLE_PREFIX = "sample:"
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class _Given:
    given: str

    def __str__(self) -> str:
        return self.given


@dataclass(frozen=True)
class KernelFile(_Given):
    """A Python file of kernels; it may not exist (loading it says so)."""

    given: str
    path: str  # absolute, resolved where the request was made


@dataclass(frozen=True)
class SampleKernel(_Given):
    given: str
    name: str  # core/samples.py finds its file where it is loaded


@dataclass(frozen=True)
class ModuleReference(_Given):
    """`pkg.module` or `pkg.module:kernel`: the module's file, found on Python's path here."""

    given: str
    module: str
    kernel: str | None
    path: str  # absolute


@dataclass(frozen=True)
class CachedKernel(_Given):
    given: str
    folder: str  # as typed; "" for `:NAME` (the working folder)
    name: str

    @property
    def folder_path(self) -> Path:
        return Path(self.folder or ".")


@dataclass(frozen=True)
class CaptureFolder(_Given):
    given: str

    @property
    def folder(self) -> Path:
        return Path(self.given)


@dataclass(frozen=True)
class CellPiece:
    """One definition a cell's kernel needs, as its source: the kernel itself, a @triton.jit helper, a
    plain function its decorators call. It is run again at its cell's lines, under its cell's name."""

    name: str  # the global name the definition binds
    file: str  # the cell's file name, as Python compiled it (IPython keeps the cell in linecache under it)
    first_line: int  # its first line in the cell, decorators included
    text: str  # its source, decorators included, dedented
    aliases: tuple[str, ...] = ()  # other global names the notebook binds to it
    optional: bool = False  # a script's constant: where making it again fails, it is left out


@dataclass(frozen=True)
class CellValue:
    """A global name a cell's definitions read that is no definition of a cell: a module (by name), an
    object of a module (by its module and qualified name), or a plain value (pickled)."""

    name: str
    module: str = ""
    attribute: str = ""  # an object of `module`: its qualified name there; "" for the module itself
    pickled: bytes = b""  # a plain value (a constant, a list of triton.Config), where `module` is ""
    where: str = ""  # the cell and line that read it, for messages


@dataclass(frozen=True)
class CellKernel(_Given):
    """A kernel defined in a notebook cell or a REPL: no file holds it, so what it needs travels as data."""

    given: str  # the kernel's cell file name, which Triton's locations name
    name: str
    pieces: tuple[CellPiece, ...]  # in the order they are run again: what one's decorators call first
    values: tuple[CellValue, ...]
    sys_path: tuple[str, ...] = ()  # the defining process's sys.path, where the modules named are found

    @property
    def files(self) -> frozenset[str]:
        return frozenset(piece.file for piece in self.pieces)


Source = KernelFile | SampleKernel | ModuleReference | CachedKernel | CaptureFolder | CellKernel


def cell_label(file: str, line: int) -> str:
    """A notebook cell's line as IPython names it in tracebacks (`Cell In[3], line 5`), where IPython
    runs and compiled that cell; else FILE:LINE."""
    import sys

    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    number = getattr(getattr(shell, "compile", None), "_filename_map", {}).get(file)
    return f"Cell In[{number}], line {line}" if number is not None else f"{file}:{line}"


def file_text(file: str) -> str | None:
    """A kernel's file, or its notebook cell's lines, which Python's line cache holds (IPython keeps
    every cell there; triton_api/cell_module.py in the process that compiles); None where neither is."""
    import linecache

    try:
        return Path(file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "".join(linecache.getlines(file)) or None


def short_path(file: str) -> str:
    """A file as a line of the program names it: its base name, or for an installed library's file its
    path within the library (`transformers/generation/utils.py`: `utils.py` alone says nothing)."""
    for folder in ("site-packages", "dist-packages"):
        marker = f"/{folder}/"
        if marker in file:
            return file.split(marker, 1)[1]
    return file.rsplit("/", 1)[-1]


def cells_named(text: str) -> str:
    """A message with each notebook cell's file (`/tmp/ipykernel_7/123.py:5`, which is not on the disk)
    named as IPython names it (`Cell In[3], line 5`), where IPython runs."""
    import re
    import sys

    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    cells = getattr(getattr(shell, "compile", None), "_filename_map", None) or {}
    import html

    for named, number in cells.items():
        if not isinstance(named, str):
            continue
        file = named if named in text else html.escape(named)  # in an HTML view, escaped (`&lt;ipython-input`)
        if file in text:
            text = re.sub(rf"{re.escape(file)}:(\d+)", rf"Cell In[{number}], line \1", text)
            text = text.replace(file, f"Cell In[{number}]")
        base = file.rsplit("/", 1)[-1]  # `lines 2-5 of 563897070.py`: the file's name alone
        if base != file and base in text:
            text = re.sub(rf"(?<![\w/.]){re.escape(base)}", f"Cell In[{number}]", text)
    return text


def parse(given: str) -> Source:
    """The source a FILE argument names. Only a module reference that is on no path fails here;
    a missing file, sample or cached kernel fails where it is read, with the command's own message."""
    if not given.strip():  # `"$KERNEL"` with the variable unset: not the working folder
        raise KernelFileError(
            "FILE is empty (an unset variable in a script?): give a kernel file, sample:NAME or pkg.mod:kernel"
        )
    if given.startswith(SAMPLE_PREFIX):
        return SampleKernel(given, given[len(SAMPLE_PREFIX) :])
    given = os.path.expanduser(given)  # `~/.triton/cache` from an agent, the API or quotes: no shell expanded it
    folder, sep, name = given.rpartition(":")
    if sep and name and Path(folder or ".").is_dir():
        return CachedKernel(given, folder, name)
    if Path(given).is_dir():
        return CaptureFolder(given)
    if _is_module_reference(given):
        module, _, kernel = given.partition(":")
        return ModuleReference(given, module, kernel or None, str(file_of(module)))
    return KernelFile(given, _absolute(given))


def no_such_file(given: str, hint: str) -> KernelFileError:
    """A kernel file that is not there, or the folder of a `DIR/:NAME` that is not."""
    folder, named, _ = given.partition("/:")
    if named:
        return KernelFileError(
            f"no such capture or cache folder: {folder}/ (for {given}, in {Path.cwd()})",
            hint="make a capture with `tritonscope trace -o DIR -- python prog.py`",
        )
    return KernelFileError(f"no such file: {given} (in {Path.cwd()})", hint=hint)


def refuse_missing(source: Source, hint: str) -> None:
    """A kernel file that is not there, refused before anything else is read of the request."""
    if isinstance(source, KernelFile) and not Path(source.path).exists():
        raise no_such_file(source.given, hint)


def local_file(source: Source) -> Path | None:
    """The Python file a source is read from on this machine (what `--watch` and the explorer watch for
    saves); None for a compiled kernel or a folder, which have none."""
    if isinstance(source, (KernelFile, ModuleReference)):
        return Path(source.path)
    if isinstance(source, SampleKernel):
        from .samples import sample_path

        try:
            return sample_path(source.name)
        except KernelFileError:
            return None
    return None


def depends_on(source: Source) -> tuple[str, ...]:
    """The files and folders an answer about this source depends on (isolate/session.py's warm worker
    keeps the answer while they are unchanged): a kernel file or module, a capture's folder. None for a
    sample, and none for a notebook cell's kernel: its definitions' text is part of the request."""
    if isinstance(source, (KernelFile, ModuleReference)):
        return (source.path,)
    if isinstance(source, CachedKernel):
        return (str(source.folder_path),)
    if isinstance(source, CaptureFolder):
        return (source.given,)
    return ()


def in_folder(given: str, folder: Path) -> str:
    """A FILE written in a file of FOLDER (a project's pyproject.toml): a path is relative to FOLDER,
    a sample is as it is."""
    return given if given.startswith(SAMPLE_PREFIX) else str(folder / given)


def own_paths(given: Iterable[str]) -> list[Path]:
    """The FILE arguments that are the user's own paths, not a bundled sample: what a run's
    outputs may not replace."""
    return [Path(g) for g in given if not g.startswith(SAMPLE_PREFIX)]


def cached_kernel(given: str) -> CachedKernel:
    """A DIR/:NAME argument of a command that takes only cached kernels (reproduce): DIR is read,
    and said to be missing, by that command."""
    folder, colon, name = given.rpartition(":")
    if not colon or not folder or not name:
        raise UsageError(
            f"{given}: expected DIR/:KERNEL, a kernel compiled in a capture (trace -o DIR) or a Triton cache",
            hint="tritonscope cache list DIR lists a folder's kernels",
        )
    return CachedKernel(given, folder, name)


def _absolute(given: str) -> str:
    path = Path(given).expanduser()
    try:
        return str(path.resolve())
    except (OSError, ValueError):  # a name no file has (a NUL in it): loading it says "no such file"
        return str(path.absolute())
    except RuntimeError:  # a symlink loop (Python before 3.13 says so with a RuntimeError)
        raise KernelFileError(f"{given}: a symlink loop (its links lead back to themselves)") from None


def _is_module_reference(given: str) -> bool:
    """`pkg.mod`, `pkg.mod:kernel` or `mod:kernel` (a top-level module names its kernel, else it is
    a file's name): a dotted name that is not a path to an existing file."""
    module, _, kernel = given.partition(":")
    dotted = bool(_DOTTED.fullmatch(module)) and (not kernel or kernel.isidentifier())
    return dotted and ("." in module or bool(kernel)) and not Path(given).exists() and not module.endswith(".py")


def file_of(module: str) -> Path:
    """The file of a dotted module name, found as Python's import finds it, without importing anything:
    the top package by the import system's finders (sys.path, an editable install's), each name below
    it in its package's folders, through namespace folders (no `__init__.py`, PEP 420) too. The
    working folder is searched last, as `python -m` would search it first."""
    top, *below = module.split(".")
    spec = _top_spec(top)
    locations: list[str] | None = list(spec.submodule_search_locations or []) if spec is not None else []
    found: Path | None = None
    if not below and spec is not None and spec.origin and spec.origin.endswith(".py"):
        found = Path(spec.origin)  # a top-level module (`my_kernels:add_kernel`) or package
    for depth, name in enumerate(below):
        found, locations = _below(locations or [], name)
        if locations is None and depth < len(below) - 1:
            found = None  # a module, not a package: it holds no further names
            break
    if found is not None:
        return found.resolve()
    raise KernelFileError(
        f"no module {module} on Python's path or in the working folder (a module reference is pkg.module:kernel)",
        hint="give the kernel file's path instead, run from the folder that holds the package, or install "
        "the package in this environment",
    )


def _top_spec(top: str) -> importlib.machinery.ModuleSpec | None:
    """Where a top-level module or package is (its folders, for a package): nothing of it is imported
    (its code runs only when the kernel is loaded). On Python's path first, then in the working folder."""
    importlib.invalidate_caches()  # a folder made since the last search (a test's) is seen
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec is None or (spec.submodule_search_locations is None and not (spec.origin or "").endswith(".py")):
        spec = importlib.machinery.PathFinder.find_spec(top, [os.getcwd()]) or spec
    return spec


def _below(locations: list[str], name: str) -> tuple[Path | None, list[str] | None]:
    """The file of NAME in a package's folders and, where it is a package, its own folders: as Python's
    FileFinder decides, a regular package or a module of the first folder that has one, else the
    namespace folders of every folder."""
    portions = []
    for location in locations:
        folder = Path(location) / name
        if (folder / "__init__.py").is_file():
            return folder / "__init__.py", [str(folder)]
        if folder.with_name(name + ".py").is_file():
            return folder.with_name(name + ".py"), None
        if folder.is_dir():
            portions.append(str(folder))
    return None, portions or None
