"""What a command returns, and the files it names: the wrapper (cli/runner.py `_finish`) draws each
through render/registry.py and writes it whole or not at all, never over what tritonscope did not
write (core/fileio.py). Commands name their outputs; they never pick a renderer or write a file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import fileio
from ..core.errors import UsageError
from ..core.source import own_paths

if TYPE_CHECKING:
    from ..render.registry import Format


@dataclass(frozen=True)
class File:
    """One output file (--html, --junit, --plot, report -o, a baseline): a result drawn in `fmt`."""

    path: Path
    fmt: Format
    flag: str  # the option that named it, for messages
    protected: tuple[str, ...] = ()  # files the run reads (the kernel file): never replaced
    options: Mapping[str, Any] = field(default_factory=dict)  # the renderer's (keep_loc)
    result: Any = None  # what is drawn, where not the command's own result (check's baselines)
    said: str = "wrote {path}"  # said on stderr once written; empty: nothing
    style: str | None = None

    def checked(self, result_type: type) -> File:
        """Makes the renderer now, so that what it refuses (a plot's format, matplotlib missing) is
        said before the work it would draw, not after."""
        from ..render.registry import renderer

        renderer(result_type, self.fmt, **self.options)
        return self


@dataclass(frozen=True)
class Folder:
    """An output folder (`dump -o DIR`): the result drawn as files, swapped in whole."""

    path: Path
    force: bool  # may replace a folder tritonscope wrote before
    protected: tuple[str, ...] = ()
    fmt: Format = "files"
    options: Mapping[str, Any] = field(default_factory=dict)
    result: Any = None  # what is drawn, where not the command's own result

    def checked(self) -> Folder:
        """Checks that the folder may be written (and replaced) before a slow compile: a staging
        folder is made beside it and removed again."""
        try:
            fileio.discard(fileio.prepare_output_dir(self.path, self.force, own_paths(self.protected)))
        except BaseException:
            fileio.discard_own(self.path)  # even one whose name a signal kept from us
            raise
        return self


@dataclass(frozen=True)
class Output:
    """What a command returns when it shows its result with options (--wrap, --side-by-side ...),
    not at all, or names files: the result, its view's options and its files. A command may also
    return the bare result."""

    result: Any
    options: dict[str, Any] = field(default_factory=dict)
    shown: bool = True  # False: only the files and the exit status (trace's own output is its program's)
    files: tuple[File | Folder, ...] = ()  # written in order, before the result is shown
    fmt: Format | None = None  # the format it is shown in, where not the one asked for (reproduce -o -)


def write(output: Output) -> None:
    """Every file the output names, each drawn and written whole; none is left half written."""
    from ..render.registry import render

    for out in output.files:
        drawn = render(output.result if out.result is None else out.result, out.fmt, **out.options)
        if isinstance(out, Folder):
            _write_folder(out, drawn)
            continue
        if isinstance(drawn, dict):
            raise TypeError(f"{out.flag}: {out.fmt} draws a folder's files: name a Folder")
        data = drawn.encode() if isinstance(drawn, str) else drawn
        fileio.write_output(out.path, data, out.flag, tuple(own_paths(out.protected)))
        if out.said:
            _say(out.said.format(path=out.path), out.style)


def _write_folder(folder: Folder, files: Any) -> None:
    """Staged beside OUT and swapped in: nothing is written when this fails, is interrupted or is
    killed by SIGTERM."""
    out = folder.path
    staging = fileio.prepare_output_dir(out, folder.force, own_paths(folder.protected))
    try:
        for name, content in files.items():
            try:
                (staging / name).write_bytes(content)
            except OSError as exc:
                raise UsageError(f"--out {out}: could not write {name}: {exc.strerror or exc}") from None
        fileio.publish_output_dir(staging, out)
    except BaseException:
        fileio.discard(staging)
        fileio.discard_own(out)
        raise
    _say(f"wrote {len(files)} files to {out}")


def _say(message: str, style: str | None = None) -> None:
    from .messages import say

    say(message, style)
