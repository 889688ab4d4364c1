"""A whole capture (`trace -o DIR`, or a Triton cache folder) opened as a set of kernel compiles,
and checked whole: one clear message listing what is damaged. The capture diff and check start here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..capture_hook import tritonscope_contract as contract
from ..core.errors import KernelFileError, UsageError
from ..core.quantities import count
from ..core.source import CaptureFolder
from .entries import CacheEntry, cache_root, scan
from .logs import compile_records


@dataclass(frozen=True)
class Capture:
    """A capture's (or cache's) compiles, every one with its binary."""

    folder: Path
    entries: tuple[CacheEntry, ...]  # oldest first
    captured: bool  # a `trace` capture (kernels.jsonl), not a bare Triton cache

    @property
    def targets(self) -> list[str]:
        return sorted({e.target for e in self.entries})

    @property
    def releases(self) -> list[str]:
        return sorted({str(e.metadata.get("triton_version", "?")) for e in self.entries})


def open_capture(given: str | Path) -> Capture:
    """A capture or Triton cache folder, checked whole: one clear message if it is not one, or damaged."""
    folder = Path(given)
    if folder.exists() and not folder.is_dir():
        raise UsageError(
            f"{folder}: not a folder, so not a capture", hint="give a folder made by `tritonscope trace -o DIR`"
        )
    if not folder.is_dir():
        raise UsageError(f"{folder}: no such directory", hint="give a folder made by `tritonscope trace -o DIR`")
    found, problems = scan(folder)
    captured = (folder / contract.CAPTURE_LOG).exists()
    if not found and not captured and not _has_stages(folder):
        raise UsageError(
            f"{folder}: not a capture: it has no {contract.CAPTURE_LOG} and no compiled kernels"
            + (f" ({count(len(problems), 'file')} that Triton did not write)" if problems else ""),
            hint="make one with `tritonscope trace -o DIR -- python prog.py` (or give a TRITON_CACHE_DIR)",
        )
    problems += _missing(folder, found, captured)
    if problems:
        shown = "\n  ".join(problems[:8]) + (f"\n  ... and {len(problems) - 8} more" if len(problems) > 8 else "")
        raise UsageError(
            f"{folder}: a damaged capture ({len(problems)} problem{'s' if len(problems) > 1 else ''}):\n  {shown}",
            hint="trace the program again, or restore the folder from where it is kept",
        )
    return Capture(folder, tuple(sorted(found, key=lambda e: (e.name, e.metadata["hash"]))), captured)


def _missing(folder: Path, found: list[CacheEntry], captured: bool) -> list[str]:
    """Compiles the capture's log names whose artifacts are gone, and entries without their binary."""
    problems = []
    have = {e.metadata.get("hash") for e in found}
    if captured:
        logged, _ = compile_records(folder)
        problems += [
            f"{folder / contract.CAPTURE_LOG}: compile {h[:12]} ({r.get('name')}) has no artifacts in "
            f"{contract.CACHE_FOLDER}/"
            for h, r in logged.items()
            if h not in have
        ]
    for e in found:
        binary = "hsaco" if e.target.startswith("gfx") else "cubin"
        if binary not in e.stages:
            problems.append(f"{e.folder}: {e.name}.{binary} is missing")
    return problems


# What Triton writes beside a kernel's metadata: a folder with none of these is no cache, however
# many JSON files it holds (a plain folder is not a damaged capture).
_STAGE_SUFFIXES = (".ttir", ".ttgir", ".llir", ".ptx", ".cubin", ".amdgcn", ".hsaco")


def _has_stages(folder: Path) -> bool:
    return any(
        f.suffix in _STAGE_SUFFIXES for entry in cache_root(folder).iterdir() if entry.is_dir() for f in entry.iterdir()
    )


def capture_given(source: CaptureFolder) -> KernelFileError:
    """A folder given where a kernel is wanted: a capture (or Triton cache) names its kernels as
    `DIR/:NAME`, as `explore DIR/` lists them; any other folder is no kernel file."""
    folder = source.given.rstrip("/") or "/"
    try:
        names = list(dict.fromkeys(entry.name for entry in scan(Path(folder))[0]))
    except OSError:
        names = []
    if not names and (Path(folder) / contract.CAPTURE_LOG).is_file():
        return KernelFileError(f"{source} is a capture of a program that compiled no Triton kernel: nothing to show")
    if not names:
        return KernelFileError(f"{source} is a directory; give a Python file with Triton kernels")
    shown = ", ".join(f"{folder}/:{name}" for name in names[:8]) + (", ..." if len(names) > 8 else "")
    return KernelFileError(
        f"{source} is a folder of {count(len(names), 'kernel')} (a capture or a Triton cache), not a kernel "
        f"file: give one of them as {folder}/:NAME ({shown})",
        hint=f"tritonscope cache list {source} lists them with their options; explore {source} opens them",
    )
