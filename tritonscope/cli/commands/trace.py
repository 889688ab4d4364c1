from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ...core.errors import UsageError
from ...core.quantities import count
from ..argtypes import autotune_rule, memory_size, on_read_value
from ..argtypes import target as parse_target
from ..messages import say
from ..options import JsonOpt
from ..output import Output
from ..runner import ENV, command


@command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def trace(
    command_line: Annotated[list[str], typer.Argument(help="The program to run, after --.", metavar="-- COMMAND...")],
    out: Annotated[Path, typer.Option("--out", "-o", metavar="DIR", help="The capture directory to write.")],
    force: Annotated[bool, typer.Option("--force", help="Replace a capture directory tritonscope wrote.")] = False,
    launches: Annotated[
        int,
        typer.Option(
            "--launches",
            metavar="N",
            help="Record the first N launches of each compiled kernel (grid, argument shapes and values), "
            "in each process; 0 records none.",
        ),
    ] = 3,
    target: Annotated[
        str | None,
        typer.Option(
            "--target",
            "-t",
            metavar="TARGET",
            help="Run the program against a simulated GPU of this target (sm75 ... sm120, gfx90a ... gfx950, or "
            "a GPU's name: h100, h200, a100, mi300 ...): every kernel compiles for it, none runs; no GPU needed.",
        ),
    ] = None,
    autotune: Annotated[
        str | None,
        typer.Option(
            "--autotune",
            metavar="RULE",
            help="With --target: the candidate each autotuned kernel launches, since none can be timed "
            "(every one still compiles): first (default), last, N (the candidate at index N, from 0), or "
            "KEY=VALUE,... (the first candidate with those settings, e.g. BLOCK_M=128,num_warps=8); a kernel "
            "with no such candidate launches its first.",
        ),
    ] = None,
    on_read: Annotated[
        str,
        typer.Option(
            "--values",
            "--on-read",
            metavar="host|stop|zero|N",
            help="With --target: what a read of a device value (.item(), printing a tensor, a branch on "
            "one, a boolean mask's result) gets: the value the GPU would give, computed on the host from the "
            "operators and compiled graphs that made it (host, the default); a stop there, keeping the "
            "capture (stop); or 0 (zero) or the number N everywhere. Each answered read is logged in the "
            "capture, with its value.",
        ),
    ] = "host",
    host_memory: Annotated[
        str | None,
        typer.Option(
            "--host-memory",
            metavar="SIZE",
            help="With --target and --values host: the most memory the host's values may take (e.g. 8GiB; "
            "default: half of this machine's memory); a read that needs more stops with one line.",
        ),
    ] = None,
    json_out: JsonOpt = False,
):
    """Run a program and capture every kernel Triton compiles in it (torch.compile's kernels too).

    Each kernel's stages, metadata, source and the specialization Triton used land in DIR, with
    its first launches; `tritonscope cache list DIR` lists them, `tritonscope dump DIR/:NAME`
    shows one, and `tritonscope reproduce DIR/:NAME` writes a script that launches it again.

    With --json, a document naming what was captured goes to stdout, and the program's own
    output to stderr.

    Examples:

      tritonscope trace -o run1/ -- python train.py --steps 3

      tritonscope trace -o run1/ --json -- python train.py > captured.json

      tritonscope trace --target sm90 -o h100/ -- python infer.py   (no GPU needed)

      tritonscope trace --target sm90 -o step/ -- python train.py --steps 1   (backward too)

      tritonscope trace -t sm90 --autotune last -o h100/ -- python infer.py

      tritonscope trace -t sm90 -o h100/ -- python generate.py   (reads computed on the host)

      tritonscope trace -t sm90 --values zero -o h100/ -- python train.py   (reads get 0)
    """
    from ...app.trace import trace as run_trace

    if target is None and autotune is None:  # else the app refuses --autotune alone, in one line
        from ...core.targets import local_target

        if local_target() is None:
            say(
                "no GPU here: kernels the program launches cannot run; --target sm90 (or another) runs it against "
                "a simulated GPU",
                "yellow",
            )
    protected = [Path(word) for word in command_line if Path(word).exists()]  # the program and its files
    simulation = _simulation(target, autotune, on_read, host_memory)
    try:
        result = run_trace(command_line, out, force, protected, launches, _program_stdout(json_out), simulation)
    except KeyboardInterrupt:  # before the program compiled anything: nothing was kept, nothing replaced
        kept = f"{out} is left as it was" if out.exists() else f"{out} was not written"
        say(f"Ctrl-C stopped the program before it compiled anything; {kept}", "yellow")
        raise
    _report(result, out, launches)
    return Output(result, shown=json_out)  # without --json, stdout is the program's


_NAMED = 6  # kernels named in trace's summary (Inductor's names run to 200 characters)


def _report(result, out: Path, launches: int) -> None:
    """What was captured, the reads answered, and where and why the program was stopped."""
    if not result.written:
        kept = "an earlier capture there is left as it was" if out.exists() else "nothing was written"
        say(f"the program exited with {result.returncode} before it compiled a kernel: {kept}", "yellow")
        return
    shown = ", ".join(result.kernels[:_NAMED])
    more = (
        f" and {len(result.kernels) - _NAMED} more (`tritonscope cache list {out}`)"
        if len(result.kernels) > _NAMED
        else ""
    )
    names = f": {shown}{more}" if result.kernels else " (the program compiled none)"
    if result.interrupted:
        say(f"Ctrl-C stopped the program; {out} keeps what it recorded before", "yellow")
    captured = count(len(result.kernels), "compiled kernel")
    if result.compiles > len(result.kernels):  # recompiles and autotune candidates
        captured = f"{count(result.compiles, 'compile')} of {count(len(result.kernels), 'kernel')}"
        if result.binaries < result.compiles:  # a GPU run takes those from Triton's cache
            again = result.compiles - result.binaries
            captured += f" ({result.binaries} binaries: {again} compiled a binary made before)"
    say(f"captured {captured} into {out}{names}")
    if launches:
        say(f"recorded {count(result.launches, 'launch', 'launches')}, at most {launches} per kernel and process")
    if result.answered:
        first = result.answered[0]
        how = "on the host" if result.on_read == "host" else f"with {result.on_read}"
        say(f"answered {count(len(result.answered), 'value read')} {how} (--values), the first at {first}")
    if result.stopped:
        say(f"stopped at {result.stopped}; the capture so far is kept", "yellow")
        if result.on_read == "stop":
            say("--values host (the default) computes it on the host; --values zero goes on with 0", "dim")
        elif "--host-memory" in result.stopped:
            say("give a larger --host-memory (e.g. 16GiB), or go on with a stand-in value: --values zero", "dim")
        elif _by_torch(result.stopped):  # not a read: a stand-in value changes nothing
            say("an operator the simulated GPU has no fake kernel for; a GPU run does not stop here", "dim")
        else:
            say("to go on past it with a stand-in value: --values zero (or --values N)", "dim")
    elif result.returncode and not result.interrupted:  # its status is passed through: say whose it is
        said = (
            f"was killed by signal {-result.returncode}"
            if result.returncode < 0
            else f"exited with {result.returncode}"
        )
        say(f"the program {said}; trace exits with its status", "yellow")


def _simulation(target: str | None, autotune: str | None, on_read: str, host_memory: str | None):
    """The simulated GPU's answers, checked before the program runs; None without --target."""
    from ...app.trace import Simulation

    why = {
        "--autotune": "on a real GPU the autotuner times its candidates; the rule is for a simulated one",
        "--values": "on a real GPU a read gets the real value; the answer is for a simulated one",
        "--host-memory": "on a real GPU values take no host memory; the budget is for a simulated one",
    }
    given_flags = (("--autotune", autotune, None), ("--values", on_read, "host"), ("--host-memory", host_memory, None))
    for flag, given, default in given_flags:
        if target is None and given != default:
            raise UsageError(f"{flag} {given}: {why[flag]}", hint="add --target T (e.g. --target sm90)")
    if target is None:
        return None
    rule = autotune_rule(autotune) if autotune is not None else None
    budget = memory_size(host_memory) if host_memory is not None else None
    return Simulation(parse_target(target), rule, on_read_value(on_read), ENV.debug, budget)


def _program_stdout(json_out: bool):
    """The traced program's stdout: this command's own (results go to a private copy of it), or
    stderr where stdout carries the --json document."""
    if json_out:
        return sys.stderr
    try:
        ENV.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test runner's buffer)
        return None
    return ENV.stdout


def _by_torch(stopped: str) -> bool:
    """Whether a stop was for an operator torch ran for real on the device (no stand-in value helps)."""
    from ...app.trace import RUN_BY_TORCH

    return RUN_BY_TORCH in stopped
