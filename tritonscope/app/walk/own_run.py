"""A kernel file's own run for `--from-run` (no command after `--`): the command that runs it as a
learner would (triton_api/file_run.py: `python FILE` a statement at a time, then its `test_*`
functions, then its benchmarks), what each of those steps did, and the message when none of them
launched the kernel: where it stopped, what failed, and which function of the file would launch it.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from ...core.errors import KernelFileError
from ...core.pysource import launch_sites

STEPS = "file_run.jsonl"  # what the file's own run did, one JSON line per step (triton_api/file_run.py)
_SHOWN_ERROR = 120  # characters of an exception's text in a line of the message
_MODULE_LEVEL = "the file's own code"  # a launch outside any function
_SHOWN_LINES = 6  # failed statements' lines named in the message


def command(path: Path, folder: Path) -> list[str]:
    """The file's own run, its steps logged in FOLDER."""
    from ...triton_api import file_run

    return [sys.executable, file_run.__file__, str(folder / STEPS), str(path)]


def steps(folder: Path) -> list[dict] | None:
    """What each step of the run did; None where the run logged nothing (it ended before its first)."""
    try:
        text = (folder / STEPS).read_text()
    except OSError:
        return None
    found = []
    for line in text.splitlines():
        with contextlib.suppress(ValueError):
            found.append(json.loads(line))
    return found


def not_launched(path: Path, kernel: str | None, wanted: str, launch: int, steps: list[dict]) -> KernelFileError:
    """What the file's own run tried, step by step, and which of its functions would launch KERNEL."""
    main = next((step for step in steps if step.get("step") == "__main__"), {})
    first = (main.get("failures") or [None])[0]
    if first:  # said as a stop, where the program would have stopped; tritonscope went on
        error = str(first.get("error"))[:_SHOWN_ERROR]
        head = f"python {path.name} stopped at {path}:{first.get('line')} ({error}) before reaching {wanted}"
        head += "; run on past it, and through its test and benchmark functions, it never got there:"
    else:
        head = f"python {path.name} ended (exit 0) without reaching {wanted}, nor did its test and benchmark functions:"
    lines = [f"  {_step_said(step, path)}" for step in steps]
    sites = launch_sites(path.read_text(errors="replace"), kernel) if kernel else []
    functions = [name for name, _ in sites if name]
    hint = "give a program that launches it after --, e.g. --from-run -- python my_run.py"
    if sites:
        named = ", ".join(f"{name or _MODULE_LEVEL} (line {line})" for name, line in sites[:3])
        lines.append(f"  {kernel} is launched by {named}")
    elif kernel:
        lines.append(f"  no line of {path.name} launches {kernel} ({kernel}[grid](...)): another file does")
    if functions:
        hint = f"call {functions[0]} from a script of yours and give it after --: --from-run -- python my_run.py"
    elif sites and launch > 1:
        hint = "name a launch the run reaches (--launch 1), or give a program that launches it more after --"
    if any(_read_a_value(step) for step in steps):  # a check of a result stopped a statement
        hint = f"go on past its reads of device values with --values zero, or {hint}"
    return KernelFileError("\n".join([head, *lines]), hint=hint)


def _read_a_value(step: dict) -> bool:
    return any(str(f.get("error", "")).startswith("DeviceValueRead") for f in step.get("failures") or [])


def _step_said(step: dict, path: Path) -> str:
    """One step of the file's own run in a line: what ran, and what stopped it where it failed."""
    failures = step.get("failures") or []
    if step.get("step") == "__main__":
        said = f"python {path.name}: " + (f"exited at line {step['exited_at']}; " if step.get("exited_at") else "")
        if not failures:
            return said + "every statement ran"
        lines = ", ".join(str(f.get("line")) for f in failures[:_SHOWN_LINES])
        more = ", ..." if len(failures) > _SHOWN_LINES else ""
        return said + f"{len(failures)} statement(s) failed (lines {lines}{more}), the others ran"
    said = f"{step.get('step')} (line {step.get('line')}), {step.get('cases', 0)} case(s): "
    if not failures:
        return said + "ran without launching it"
    first = failures[0]
    error = str(first.get("error"))[:_SHOWN_ERROR]
    return said + f"{len(failures)} failed, the first at line {first.get('line')}: {error}"
