"""`--from-run`: the specialization a kernel gets at a launch in the file's own run.

The file (as a learner runs it: its module-level code and `__main__`, then its tests and
benchmarks; app/walk/own_run.py), or the command given after `--`, runs as `trace` runs a program,
against the simulated GPU of the target: the launch is recorded, the
kernel compiled as that launch specialized it, and the program ended right after it
(capture.StopAtLaunch). The request then names that compile as a captured kernel
(`CAPTURE/:NAME`), which every command already reads: dump and explain read it whole, diff and
passes start from its recorded specialization.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from ...capture_hook import tritonscope_contract as contract
from ...captures.environment import environment_for_capture
from ...captures.logs import stop_record
from ...core.errors import KernelFileError, UsageError
from ...core.limits import USER_CODE_SECONDS
from ...core.model import FromRun, VariantRequest
from ...core.source import CachedKernel
from ...isolate import Finished, Program, not_started
from . import own_run

_TAIL_LINES = 6


@dataclass(frozen=True)
class Launch:
    """The launch a `--from-run` request stopped at."""

    name: str
    grid: tuple[int, ...]  # as the launch gave it
    file: str | None  # the program's line that launched it
    line: int | None
    index: int  # which launch of that kernel, from 1
    hash: str  # of the compile it launched
    skipped: tuple[str, ...] = ()  # what the file's own run went on past before it, a line each

    def describe(self) -> str:
        where = f" at {self.file}:{self.line}" if self.file else ""
        grid = "x".join(str(g) for g in self.grid)
        return f"from the run: launch {self.index} of {self.name}{where}, grid {grid}"


def resolve_from_run(request: VariantRequest) -> tuple[VariantRequest, Launch | None]:
    """A `--from-run` request as the captured kernel its launch compiled; other requests as they are."""
    if request.from_run is None:
        return request, None
    if isinstance(request.source, CachedKernel):
        raise UsageError("--from-run runs a kernel file; a captured kernel (DIR/:NAME) already holds its launch")
    from .load import kernel_path
    from .prepare import from_reference

    path = kernel_path(request.source)
    folder = Path(tempfile.mkdtemp(prefix="tritonscope-from-run-"))
    try:
        launch = _run_to_launch(path, request, folder)
        _keep_only(folder, launch)
        reference = f"{folder}{os.sep}:{launch.name}"
        source = CachedKernel(reference, f"{folder}{os.sep}", launch.name)
        captured = replace(request, file=reference, source=source, kernel=None, from_run=None)
        resolved = from_reference(captured)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    if Path(resolved.file).resolve().is_relative_to(folder.resolve()) or _object_constexprs(resolved):
        # a kernel whose source the run wrote itself (torch.compile's), or a constexpr no flag can give
        # back (a Python class, as Gluon's MMA abstraction): read its compile as captured
        atexit.register(shutil.rmtree, folder, True)
        return replace(captured, target="auto", target_notice=None), launch  # compiled already: its own target
    # The launch's specialization as flags on the kernel's own file: every view then shows that file
    # and a command line that makes the same compile (reproduce), not a private folder.
    shutil.rmtree(folder, ignore_errors=True)
    return replace(resolved, target=request.target), launch


def _object_constexprs(request: VariantRequest) -> list[str]:
    """Constexprs the launch gave as Python objects (a class, an instance), recorded as their repr
    (`<class '__main__.WGMMA'>`): flags cannot give them back."""
    return [name for name, value in request.constexprs if isinstance(value, str) and value.startswith("<")]


def _run_to_launch(path: Path, request: VariantRequest, folder: Path) -> Launch:
    target = request.target_info  # resolved where the request was made: the simulated GPU's
    assert target is not None, "a --from-run request names a kernel file, never a compiled kernel"
    run = _from_run(request)
    command = list(run.command) or own_run.command(path, folder)
    limit = max(contract.DEFAULT_LAUNCH_LIMIT, run.launch)
    env = environment_for_capture(folder, limit, target.simulated_device(), on_read=run.on_read)
    # The kernel named with -k, else the first kernel defined in FILE that the run launches.
    want: dict[str, str | int] = {"name": request.kernel or "", "file": "" if request.kernel else str(path)}
    want["launch"] = run.launch
    env[contract.ENV_STOP_AT_LAUNCH] = json.dumps(want)
    seconds = USER_CODE_SECONDS.get()
    finished = _run(command, env, seconds, own_run=not run.command)
    shown = _shown(command) if run.command else f"python {path.name}"
    if finished.timed_out:
        raise UsageError(
            f"{shown} ran {seconds:g} s without reaching {_wanted(request, path)}",
            hint="raise --timeout, or name another launch with --launch N",
        )
    if finished.returncode != contract.LAUNCH_REACHED_EXIT:
        steps = None if run.command else own_run.steps(folder)
        if steps is not None and finished.returncode == 0:
            raise _own_run_failed(path, request, finished, steps)
        raise _not_reached(shown, finished, request, path, stop_record(folder))
    launch = _stopped_launch(folder, request)
    return launch if run.command else replace(launch, skipped=tuple(own_run.skipped(folder, path)))


def _run(command: list[str], env: dict[str, str], seconds: float, own_run: bool) -> Finished:
    """The program through the one runner: it and what it starts are stopped together, and die with
    tritonscope. The file's own run (no command after --) works in a folder of tritonscope's own, so
    that what it writes there (a benchmark's results.html, its plots: figures of no real run) goes
    with the folder; a command the user gave works where the user is, as under `trace`."""
    import subprocess

    from ...core.scratch import own_working_folder

    with contextlib.ExitStack() as stack:
        cwd = stack.enter_context(own_working_folder()) if own_run else None
        try:
            # The program's prompts go to a pipe: on a terminal its `input()` would wait unseen, so it
            # reads nothing there (and ends in EOFError, said below); input piped to tritonscope is its.
            stdin = subprocess.DEVNULL if _terminal_input() else None
            pipe = subprocess.PIPE
            with Program(command, env=env, cwd=cwd, text=True, stdin=stdin, stdout=pipe, stderr=pipe) as p:
                return p.finish(seconds)
        except OSError as exc:
            raise not_started(command, exc) from None


def _terminal_input() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):  # closed
        return False


def _stopped_launch(folder: Path, request: VariantRequest) -> Launch:
    records = [json.loads(line) for line in (folder / contract.LAUNCH_LOG).read_text().splitlines() if line.strip()]
    stop = next(r for r in reversed(records) if r.get("stop"))
    site = stop.get("call_site") or {}
    grid = tuple(int(g) for g in stop["grid"])
    return Launch(stop["name"], grid, site.get("file"), site.get("line"), _from_run(request).launch, stop["hash"])


def _from_run(request: VariantRequest) -> FromRun:
    """The request's --from-run: resolve_from_run() runs only the requests that have one."""
    if request.from_run is None:
        raise TypeError("not a --from-run request")
    return request.from_run


def _keep_only(folder: Path, launch: Launch) -> None:
    """The private capture holds every compile the run made; keep the launched one alone, so that
    CAPTURE/:NAME names it."""
    for entry in (folder / contract.CACHE_FOLDER).iterdir():
        if entry.is_dir() and entry.name != launch.hash:
            shutil.rmtree(entry, ignore_errors=True)


def _wanted(request: VariantRequest, path: Path) -> str:
    launch = _from_run(request).launch
    which = f"launch {launch} of " if launch > 1 else "a launch of "
    return which + (request.kernel if request.kernel else f"a kernel of {path.name}")


def _shown(command: list[str]) -> str:
    """The command as the user gave it after --."""
    return " ".join(command[:6]) + (" ..." if len(command) > 6 else "")


def _not_reached(shown: str, finished: Finished, request, path, stopped: str | None) -> KernelFileError:
    if stopped:  # the program read a value from the simulated GPU before the launch
        return KernelFileError(
            f"{shown} stopped at {stopped}, before reaching {_wanted(request, path)}",
            hint="add --values zero to go on past it with a stand-in value, or run a script that launches the "
            "kernel before it reads a result (-- python ...)",
        )
    failure = program_failure(str(finished.stderr or ""))
    if failure is not None:
        return _failed(shown, failure, request, path)
    tail = "\n".join(str(finished.stderr or "").strip().splitlines()[-_TAIL_LINES:])
    return KernelFileError(
        f"{shown} ended (exit {finished.returncode}) without reaching {_wanted(request, path)}"
        + (f"; it printed:\n{tail}" if tail else ""),
        hint="run the code that launches it after --, e.g. --from-run -- python bench.py, or name another launch",
    )


def _own_run_failed(path: Path, request: VariantRequest, finished: Finished, steps: list[dict]) -> KernelFileError:
    """Why the file's own run, which goes on past what fails, never launched the kernel: a thread it
    started that failed, or standard input it read, said as a program's failure; else step by step."""
    failure = program_failure(str(finished.stderr or ""))
    if failure is None or not failure.thread:
        failure = _input_read(path, steps)
    if failure is not None:
        return _failed(f"python {path.name}", failure, request, path)
    return own_run.not_launched(path, request.kernel, _wanted(request, path), _from_run(request).launch, steps)


def _input_read(path: Path, steps: list[dict]) -> ProgramFailure | None:
    """The file's first failed statement, where it read standard input (EOFError: no one answers)."""
    main = next((step for step in steps if step.get("step") == "__main__"), {})
    first = (main.get("failures") or [{}])[0]
    if not str(first.get("error", "")).startswith("EOFError"):
        return None
    line = int(first["line"])
    code = path.read_text(errors="replace").splitlines()[line - 1].strip()
    return ProgramFailure(_first_sentence(first["error"]), str(path), line, code, None)


@dataclass(frozen=True)
class ProgramFailure:
    """The last Python traceback a program printed, as one line of each thing a user needs."""

    exception: str  # `EOFError: EOF when reading a line`, its first line only
    file: str | None  # the program's own innermost line (not the standard library's or a package's)
    line: int | None
    code: str
    thread: str | None  # `Thread-1 (work)` where a thread other than the main one failed


_TRACEBACK = "Traceback (most recent call last):"
_FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+)')
_THREAD = re.compile(r"^Exception in thread (?P<name>.+?):$")


def program_failure(stderr: str) -> ProgramFailure | None:
    """The failure the program's last traceback tells of, or None where it printed none."""
    lines = stderr.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(_TRACEBACK)]
    if not starts:
        return None
    start = starts[-1]
    thread = _THREAD.match(lines[start - 1]) if start else None
    frames: list[tuple[str, int, str]] = []
    exception = ""
    for index in range(start + 1, len(lines)):
        frame = _FRAME.match(lines[index])
        if frame:
            code = lines[index + 1].strip() if index + 1 < len(lines) and lines[index + 1].startswith("    ") else ""
            frames.append((frame["file"], int(frame["line"]), code))
        elif lines[index] and not lines[index].startswith(" "):
            exception = lines[index].strip()
            break
    own = next((f for f in reversed(frames) if _programs_own(f[0])), None)
    file, line, code = own if own else (None, None, "")
    return ProgramFailure(_first_sentence(exception), file, line, code, thread["name"] if thread else None)


def _programs_own(file: str) -> bool:
    """Whether a traceback's file is the program's, not Python's, a package's or tritonscope's."""
    import sysconfig

    if file.startswith("<"):
        return False
    libraries = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    resolved = str(Path(file).resolve())
    return not any(resolved.startswith(str(Path(folder).resolve())) for folder in libraries)


def _first_sentence(text: str, limit: int = 160) -> str:
    """An exception's line cut to its first sentence (torch's dispatcher errors run a page long)."""
    sentence = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 3] + "..."


def _failed(shown: str, failure: ProgramFailure, request, path) -> KernelFileError:
    """The program failed before the launch: where (its own line), what, and what to do."""
    where = f" at {failure.file}:{failure.line}" if failure.file else ""
    where += f" ({failure.code})" if failure.file and failure.code else ""
    who = f"a thread it started ({failure.thread})" if failure.thread else "it"
    what = failure.exception.rstrip(".")
    message = f"{shown}: {who} failed{where} before reaching {_wanted(request, path)}: {what}"
    if failure.exception.startswith("EOFError"):
        return KernelFileError(
            message.replace("failed", "read standard input", 1),
            hint="--from-run gives the program no terminal: pipe its input in (tritonscope ... --from-run "
            "< input.txt), or run a script that launches the kernel without asking (--from-run -- python script.py)",
        )
    if failure.thread:
        return KernelFileError(
            message + "; the simulated GPU answers the program's main thread only",
            hint="launch the kernel from the main thread, or run a script that does (--from-run -- python script.py)",
        )
    return KernelFileError(message, hint="fix the program, or run the code that launches it after --")
