"""A cell's kernel made again in the process that compiles it, from the data cells.py sent
(core/source.py `CellKernel`): a fresh module holding the values it reads (modules imported by name,
objects of modules, plain values unpickled) and each definition run again at its cell's lines.

Each definition's source is padded to its first line and compiled under its cell's file name, with
Python's line cache filled as IPython fills it (no modification time, so it is never dropped), so
that `inspect`, Triton's JIT (which reads a function's source) and the locations Triton writes into
every stage name the cell's own lines.
"""

from __future__ import annotations

import importlib
import itertools
import linecache
import os
import pickle
import sys
import traceback
import types
from typing import Any

from ..core.errors import KernelFileError
from ..core.source import CellKernel, CellPiece, CellValue

_made = itertools.count()


def module_of(source: CellKernel) -> types.ModuleType:
    """A module holding the kernel's definitions and what they read, as the notebook held them."""
    module = types.ModuleType(f"tritonscope_cells_{next(_made)}")
    sys.modules[module.__name__] = module
    sys.path.extend(entry for entry in source.sys_path if entry not in sys.path)  # where its modules are found
    _cache_lines(source.pieces)
    for value in source.values:
        module.__dict__[value.name] = _value(value)
    for piece in source.pieces:
        _run(piece, module.__dict__)
        for alias in piece.aliases:
            module.__dict__[alias] = module.__dict__[piece.name]
    return module


def _cache_lines(pieces: tuple[CellPiece, ...]) -> None:
    """Each cell's lines as far as its definitions go, at their own line numbers (the rest blank)."""
    by_file: dict[str, list[str]] = {}
    for piece in pieces:
        lines = by_file.setdefault(piece.file, [])
        text = piece.text.splitlines(keepends=True)
        end = piece.first_line - 1 + len(text)
        lines.extend(["\n"] * (end - len(lines)))
        lines[piece.first_line - 1 : end] = [line if line.endswith("\n") else line + "\n" for line in text]
    for file, lines in by_file.items():
        if not _as_on_disk(file, lines):  # a running script's file, unchanged, is read from the disk
            linecache.cache[file] = (sum(map(len, lines)), None, lines, file)


def _as_on_disk(file: str, lines: list[str]) -> bool:
    """Whether a file on the disk holds these definitions at their lines (blank lines: the rest)."""
    if not os.path.isfile(file):
        return False
    linecache.checkcache(file)
    there = linecache.getlines(file)
    return len(there) >= len(lines) and all(line == "\n" or line == there[i] for i, line in enumerate(lines))


def _value(value: CellValue) -> Any:
    try:
        if not value.module:
            return pickle.loads(value.pickled)  # noqa: S301 - pickled by this user's own session, for this process
        found: Any = importlib.import_module(value.module)
        for part in filter(None, value.attribute.split(".")):
            found = getattr(found, part)
        return found
    except Exception as exc:  # noqa: BLE001 - a module's import or an object's unpickling runs foreign code
        made = f"{value.module}.{value.attribute}" if value.attribute else value.module or "its value"
        raise KernelFileError(
            f"{value.where}: {value.name} ({made}) could not be made in the process that compiles: "
            f"{type(exc).__name__}: {exc}",
            hint="give it a plain value, or define what it needs in a file on Python's path",
        ) from None


def _run(piece: CellPiece, namespace: dict) -> None:
    """One definition run again, at its cell's lines; what it raises (a decorator's own code) named there."""
    code = compile("\n" * (piece.first_line - 1) + piece.text, piece.file, "exec")
    try:
        exec(code, namespace)  # noqa: S102 - the user's own definition, run as their notebook ran it
    except Exception as exc:  # noqa: BLE001 - foreign code (a decorator, a configs function) can raise anything
        if piece.optional:  # a script's constant the kernel may not need (the device it ran on)
            return
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == piece.file]
        line = frames[-1].lineno if frames else piece.first_line
        raise KernelFileError(
            f"{piece.file}:{line}: defining {piece.name} again raised {type(exc).__name__}: {exc}"
        ) from None
