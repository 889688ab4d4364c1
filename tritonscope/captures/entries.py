"""The compiled kernels of a Triton cache folder or a capture folder (`trace -o DIR`), found and named.

A cache holds one folder per compiled kernel: `NAME.ttir .ttgir .llir .ptx .cubin`
(or `.amdgcn .hsaco`), Triton's metadata `NAME.json` and a `__grp__NAME.json` index. A
capture folder is such a cache under `cache/` plus the logs of what the traced program did
(logs.py): each entry carries its compile record and its recorded launches. An entry is named
`DIR/:NAME` on the command line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..capture_hook import tritonscope_contract as contract
from ..core import fileio, schemas
from ..core.errors import KernelFileError, UsageError
from ..core.source import CachedKernel
from ..core.targets import named
from .logs import compile_records, launch_records

_ASM = ("ttir", "ttgir", "llir", "ptx", "cubin", "amdgcn", "hsaco")


@dataclass(frozen=True)
class CacheEntry:
    """One compiled kernel of a cache or capture folder: its files and Triton's metadata, and in a
    capture its compile record and launches."""

    folder: Path
    name: str
    metadata: dict
    stages: tuple[str, ...]  # artifact kinds present: ttir, ttgir, llir, ptx, cubin / amdgcn, hsaco
    size: int
    modified: float
    specialization: dict | None = None  # from a capture's kernels.jsonl
    launches: tuple[dict, ...] = ()  # from a capture's launches.jsonl, in the order they ran
    stem: str = ""  # its files' name where Triton cut the kernel's long name short for them, else ""

    @property
    def target(self) -> str:
        """Our name for the entry's target (sm90, gfx942), or Triton's own when we have none."""
        target = self.metadata.get("target")
        target = target if isinstance(target, dict) else {}
        arch = target.get("arch")
        name = f"sm{arch}" if target.get("backend") == "cuda" else str(arch)
        return name if named(name) is not None else f"{target.get('backend')}:{arch}"

    def path(self, kind: str) -> Path:
        return self.folder / f"{self.stem or self.name}.{kind}"


def default_dir() -> Path:
    """Triton's cache: TRITON_CACHE_DIR, else ~/.triton/cache."""
    from ..triton_api.runtime import cache_dir

    return cache_dir()


def cache_root(folder: Path) -> Path:
    """The cache inside a capture directory, or the folder itself."""
    cache = folder / contract.CACHE_FOLDER
    return cache if (folder / contract.CAPTURE_LOG).exists() and cache.is_dir() else folder


def entries(folder: Path) -> list[CacheEntry]:
    """Every compiled kernel in a cache or capture directory, newest first."""
    return scan(folder)[0]


def scan(folder: Path) -> tuple[list[CacheEntry], list[str]]:
    """(every compiled kernel, newest first; one line per file that is not a readable entry)."""
    fileio.recover(folder)  # a capture whose --force swap was cut short by a kill: put back
    if not folder.is_dir():
        raise KernelFileError(
            f"no such directory: {folder}",
            hint="give a capture folder (made by `tritonscope trace -o DIR`) or a Triton cache (~/.triton/cache)",
        )
    specializations, problems = compile_records(folder)
    launches, launch_problems = launch_records(folder)
    problems += launch_problems
    found = []
    for entry in sorted(cache_root(folder).iterdir()):
        if not entry.is_dir():
            continue
        for meta in sorted(entry.glob("*.json")):
            if meta.name.startswith("__grp__"):
                continue
            metadata, problem = _read_metadata(meta)
            if problem:
                problems.append(f"{meta}: {problem}, skipped")
                continue
            found.append(_entry(entry, meta.stem, metadata, specializations, launches))
    return sorted(found, key=lambda e: e.modified, reverse=True), problems


def _read_metadata(meta: Path) -> tuple[dict, str | None]:
    """Triton's metadata of one compiled kernel, or why the file is not that."""
    try:
        metadata = schemas.parse(fileio.read_input_text(meta))
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"not readable ({getattr(exc, 'strerror', None) or exc})"
    except schemas.Invalid as exc:
        return {}, str(exc)
    wrong = schemas.problem(metadata, schemas.METADATA)
    return (metadata, None) if wrong is None else ({}, f"not Triton's metadata: {wrong}")


def _entry(folder: Path, stem: str, metadata: dict, specializations: dict, launches: dict) -> CacheEntry:
    files = [f for f in folder.iterdir() if f.is_file()]
    # Triton names the files after the kernel, cut short past a length (Inductor's names run long):
    # the kernel's name is the metadata's, which the shortened stem begins
    full = metadata.get("name")
    name = full if isinstance(full, str) and full != stem and full.startswith(stem) else stem
    return CacheEntry(
        folder=folder,
        name=name,
        metadata=metadata,
        stages=tuple(kind for kind in _ASM if (folder / f"{stem}.{kind}").exists()),
        size=sum(f.stat().st_size for f in files),
        modified=max(f.stat().st_mtime for f in files),
        specialization=specializations.get(metadata.get("hash")),
        launches=tuple(launches.get(metadata.get("hash"), ())),
        stem=stem if name != stem else "",
    )


def find(kernel: CachedKernel) -> tuple[CacheEntry, list[str]]:
    """The entry a `DIR/:NAME` reference names (of several compiles of that name, the one the program
    launched, else the newest; a note names the others), and the problems met reading DIR."""
    name, _, digest = kernel.name.partition("@")  # NAME@HASH8: one compile of several, as check names it
    found, problems = scan(kernel.folder_path)
    candidates = [e for e in found if e.name == name and str(e.metadata.get("hash", "")).startswith(digest)]
    if not candidates and digest and any(e.name == name for e in found):
        hashes = ", ".join(str(e.metadata.get("hash", ""))[:8] for e in found if e.name == name)
        raise KernelFileError(f"no compile of {name} in {kernel.folder_path} has a hash starting {digest}: {hashes}")
    related = [p for p in problems if f"{name}.json" in p]  # its metadata there, but not readable
    if not candidates and not related:
        logged, _ = compile_records(kernel.folder_path)
        if any(str(r.get("name")) == name for r in logged.values()):  # recorded, its files gone
            raise KernelFileError(
                f"{kernel.folder_path} records compiles of {name}, but their files are not in its "
                f"{contract.CACHE_FOLDER}/ folder: the capture is damaged",
                hint="trace the program again",
            )
    if not candidates:
        names = sorted({e.name for e in found})
        raise KernelFileError(
            f"no kernel named '{name}' in {kernel.folder_path}. Kernels there: {', '.join(names) or 'none'}"
            + "".join(f"\n  {p}" for p in related),
            hint="tritonscope cache list DIR shows them",
        )
    # the compile the program itself launched (not an autotuner's timing run of another config),
    # the newest such; else the newest
    launched = [e for e in candidates if any(not launch.get("timing") for launch in e.launches)]
    chosen = (launched or candidates)[0]
    if len(candidates) > 1 and not digest:
        folder = kernel.folder.rstrip("/")
        others = ", ".join(
            f"{folder}/:{name}@{str(e.metadata.get('hash', ''))[:8]}" for e in candidates if e is not chosen
        )
        which = (
            f"the newest of the {len(launched)} the program launched" if len(launched) > 1  # other shapes, dtypes
            else "the one the program launched" if launched else "the newest"
        )  # fmt: skip
        another = "another is" if len(candidates) == 2 else "the others are"
        problems = [
            *problems,
            f"{len(candidates)} compiles are named {name}: this is {which}, "
            f"@{str(chosen.metadata.get('hash', ''))[:8]}; {another} {others}",
        ]
    return chosen, problems


def capture_folder(entry: CacheEntry) -> Path:
    """The capture (or cache) folder an entry was found in: OUT of `trace -o OUT` for OUT/cache/KEY."""
    cache_folder = Path(entry.folder).parent
    return cache_folder.parent if (cache_folder.parent / contract.CAPTURE_LOG).exists() else cache_folder


def as_published(file: str, folder: Path) -> str:
    """A path the traced program saw inside the capture while it was written (the hidden staging
    folder `.NAME.new.PID.xxxx` beside it: torch.compile writes its kernels there) as the same
    path in the capture folder the user has, wherever it is now and whatever its name (copied, moved:
    `cp -r run1 after`). The record keeps the path as compiled: it is in the kernel's line
    information and its PTX, which a reproduction must match."""
    match = re.match(r"^.*/\.[^/]+\.new\.\d+\.[^/]+(/.*)?$", file)
    return str(folder.resolve()) + (match.group(1) or "") if match else file


def artifact(path: Path) -> bytes:
    """A file of a cache entry (only a regular file: a pipe there would never end the read)."""
    try:
        return fileio.read_input(path)
    except OSError as exc:
        raise UsageError(
            f"{path}: not readable ({exc.strerror or exc})", hint="delete its folder and compile again"
        ) from None


def artifact_text(path: Path) -> str:
    """A text file of a cache entry (a stage's IR)."""
    try:
        return artifact(path).decode()
    except UnicodeDecodeError:
        raise UsageError(
            f"{path}: not text (a damaged cache entry)", hint="delete its folder and compile again"
        ) from None
