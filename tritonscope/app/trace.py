"""`trace`: a program run with every Triton compile it makes captured into a folder, written whole."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..capture_hook import tritonscope_contract as contract
from ..captures.entries import entries
from ..captures.environment import environment_for_capture
from ..captures.logs import answered_reads, compile_log, missing_for_simulation, stop_record
from ..core.autotune_rule import AutotuneRule
from ..core.errors import UsageError
from ..core.fileio import discard, prepare_output_dir, publish_output_dir
from ..core.quantities import count
from ..core.targets import Target
from ..isolate import STOP_GRACE, Finished, Program, not_started
from ..results.trace import TraceResult

RUN_BY_TORCH = contract.RUN_BY_TORCH  # a stop for an operator torch ran for real: no --values helps


@dataclass(frozen=True)
class Simulation:
    """How the simulated GPU of `trace --target` answers what it cannot know."""

    target: Target
    autotune: AutotuneRule | None = None  # which candidate each autotuned kernel launches
    on_read: str = "host"  # a value read: computed on the host, "stop", or the number it is answered with
    debug: bool = False  # a stop writes the Python stack it was met in
    host_memory: int | None = None  # bytes the host's values may take (None: half the machine's memory)


def trace(
    command: list[str],
    out: Path,
    force: bool,
    protected: list[Path],
    launches: int = 3,
    program_stdout=None,
    simulation: Simulation | None = None,
    limit: float | None = None,
    program_stderr=None,
) -> TraceResult:
    """Runs a program with every Triton compile captured into OUT (written whole, then swapped in), and
    the first LAUNCHES launches of each compiled kernel; against a simulated GPU when SIMULATION is
    given. The program's stdout is PROGRAM_STDOUT and its stderr PROGRAM_STDERR (a file or descriptor;
    None: this process's). With a time LIMIT (seconds; the agent server's), a program still running then
    is stopped, and nothing is written."""
    if launches < 0:
        raise UsageError(f"--launches {launches}: give 0 (record none) or more")
    if not command:
        raise UsageError("give the program to run after --, e.g. tritonscope trace -o run1/ -- python train.py")
    device = simulation.target.simulated_device() if simulation else None
    staging = prepare_output_dir(out, force, protected)
    try:
        answers = (simulation.autotune, simulation.on_read, simulation.debug) if simulation else (None, "host", False)
        env = environment_for_capture(staging.resolve(), launches, device, *answers)
        if simulation and simulation.host_memory:
            env[contract.ENV_HOST_MEMORY] = str(simulation.host_memory)
        # No time limit unless given (a training run takes what it takes); it stays in the terminal's
        # process group, so it reads the terminal and gets Ctrl-C itself, and is stopped if we are.
        with Program(command, own_group=False, env=env, stdout=program_stdout, stderr=program_stderr) as program:
            finished, interrupted = _finished_or_interrupted(program, limit)
        _refuse_without_torch(staging, out)
        if interrupted and not (staging / contract.CACHE_FOLDER).is_dir():
            raise KeyboardInterrupt  # nothing compiled yet: the old capture stays as it was
        if finished.timed_out and not interrupted:
            raise UsageError(
                f"{command[0]} ran past the time limit of {limit:g} s and was stopped; {out} was not written",
                hint="give a longer time limit, or a shorter run of the program (fewer steps, a smaller input)",
            )
    except OSError as exc:
        discard(staging)  # nothing ran: the old capture stays as it was
        raise not_started(command, exc) from None
    except BaseException:
        discard(staging)
        raise
    stopped, answered = stop_record(staging), answered_reads(staging)
    if finished.returncode and not stopped and not (staging / contract.CACHE_FOLDER).is_dir():
        discard(staging)  # it failed before compiling a kernel (a CUDA program with no GPU): nothing to keep
        return TraceResult(out, (), finished.returncode, written=False)
    if device:
        (staging / contract.SIMULATED_RECORD).write_text(json.dumps(device, indent=1) + "\n")
    (staging / contract.CAPTURE_LOG).touch()  # a program that compiled nothing is a capture too (a gate passes it)
    publish_output_dir(staging, out)
    found = entries(out) if (out / contract.CACHE_FOLDER).is_dir() else []
    recorded = sum(len(e.launches) for e in found)
    names = tuple(sorted({e.name for e in found}))
    on_read = simulation.on_read if simulation else "host"
    target = device["target"] if device else None
    compiles = len(compile_log(out)[0]) if (out / contract.CAPTURE_LOG).is_file() else 0
    return TraceResult(
        out, names, finished.returncode, recorded, target, stopped, on_read, answered, interrupted, compiles, len(found)
    )


def _finished_or_interrupted(program: Program, limit: float | None) -> tuple[Finished, bool]:
    """How the program ended, and whether Ctrl-C ended it. The program is in the terminal's group, so
    it gets the same Ctrl-C: it has STOP_GRACE seconds to end on its own (its compiles and launches
    so far are on disk already), then it is stopped; what it recorded is kept. A second Ctrl-C
    stops it at once and keeps nothing."""
    try:
        return program.finish(limit), False
    except KeyboardInterrupt:
        return program.finish(STOP_GRACE), True


def _refuse_without_torch(staging: Path, out: Path) -> None:
    """trace --target where the program's Python has no torch: the hook did not run the program."""
    missing = missing_for_simulation(staging)
    if missing is None:
        return
    module, python = missing
    raise UsageError(
        f"trace --target needs {module} in the program's Python ({python}), and it has none: the simulated GPU "
        f"is made of torch's fake tensors; the program was not run, and {out} was not written",
        hint=f"install torch's CPU build there: {python} -m pip install torch "
        "--index-url https://download.pytorch.org/whl/cpu",
    )


LAST_LINES = 12  # of a failed program's output, said with its exit code


def failed_program(command: tuple[str, ...], result: TraceResult, printed: str) -> UsageError:
    """A traced program that failed, said where its output was not seen (the agent server, the Python
    API): its exit code, what was captured all the same, and its last lines."""
    code = result.returncode
    how = f"was killed by signal {-code}" if code < 0 else f"exited with {code}"
    lines = [line[:300] for line in printed.rstrip().splitlines()[-LAST_LINES:]]
    kept = f"{count(len(result.kernels), 'kernel')} captured into {result.out}" if result.written else "nothing written"
    said = "; its last lines:\n" + "\n".join(f"  {line}" for line in lines) if lines else "; it printed nothing"
    return UsageError(
        f"{' '.join(command)} {how} ({kept}){said}", hint="fix what the program says, or run it alone to see why"
    )
