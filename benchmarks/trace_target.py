"""What `trace --target sm90` costs beyond the compiles it makes, measured in one run.

The goal (issue 24, item 7; issue 38, item 5): the wall time of `tritonscope trace --target sm90`
on a torch.compile program within 1.3x of the compile time it contains plus one bare `python -c
"import torch"` (the program must import torch in any case). Two lines: the first counts Triton's
compiles alone (the compile times Triton reports for the kernels captured); the second, held to
the goal, counts torch.compile's own compiles as well, which the program makes on a real GPU too.

Three programs by default, the two ends of what torch.compile makes and the corpus's largest (or
one given with --program):
- the small fidelity program (tests/kernels/fidelity/compile_program.py, 7 compiles) in
  torch.compile's default mode, where torch.compile's own work is most of the time;
- the same program with `--mode max-autotune-no-cudagraphs`: Inductor compiles every candidate of
  its matmul templates and pointwise configs (85 compiles), so the compiles are most of it;
- the corpus's largest program, tests/programs/llama_train.py (a 2-layer Llama's compiled training
  step, forward and backward, and AdamW: 69 compiles under torch 2.11, 57 under 2.13).

The reference leaves out torch.compile's own work, which a trace on a real GPU pays as well, and so
does the program run alone there: importing torch._dynamo and Inductor, Dynamo's tracing, AOT
autograd, Inductor's lowering and code generation. A second line holds the trace against the
reference with that work added, measured in the same runs: the import as the seconds `import
torch._dynamo, torch._inductor.compile_fx` takes after `import torch` in one process, the rest as
torch.compile reports its own compile times in the traced program (the frames' compiles and the
backward graphs' compiles, made at the first backward), less the Triton compiles made inside
them. What is left past that is the simulated GPU's and tritonscope's own cost, and the program's
eager work. The traced command is `python benchmarks/trace_target_phases.py PROGRAM
ARGS`, which runs PROGRAM and writes those figures at its exit (milliseconds of runpy).

On a machine with a GPU, `--real` adds the reference a user meets: the same program run for real on
the GPU, with Triton's and Inductor's caches cold (fresh folders), through the same phases script;
its wall time and the trace's against it. What torch.compile costs the real run it costs the trace
too, so that ratio is the simulated GPU's and tritonscope's cost beside a run on the GPU itself.

The machine may be shared: each run measures its parts back to back and its own ratios; the
median ratio is printed with every run's, the parts as medians, the load average before and
after, and the CPU seconds of the trace (every process it waited for) and of the bare import.

Run: python benchmarks/trace_target.py [--runs N] [--real] [--program FILE [ARGS...]]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAM = str(HERE.parent / "tests" / "kernels" / "fidelity" / "compile_program.py")
LARGEST = str(HERE.parent / "tests" / "programs" / "llama_train.py")  # the corpus's largest
PROGRAMS = [[PROGRAM], [PROGRAM, "--mode", "max-autotune-no-cudagraphs"], [LARGEST]]
PHASES = HERE / "trace_target_phases.py"
# In one process, after `import torch`: the seconds of torch.compile's imports alone (not the exit's)
TORCH_COMPILE_IMPORTS = (
    "import time, torch; start = time.perf_counter(); import torch._dynamo, torch._inductor.compile_fx; "
    "print(time.perf_counter() - start)"
)


def _timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and every process it waited for)."""
    before, start = _children_cpu(), time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    return time.perf_counter() - start, _children_cpu() - before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _trace(program: list[str], out: Path) -> dict[str, float]:
    """One traced run's figures: its wall time, the Triton compiles it captured, and its phases."""
    phases = out.with_suffix(".json")
    command = [sys.executable, "-m", "tritonscope", "trace", "--target", "sm90", "-o", str(out), "--force", "--"]
    env = {**os.environ, "TRACE_TARGET_PHASES": str(phases)}
    wall, cpu = _timed(command + [sys.executable, str(PHASES), *program], env)
    records = [json.loads(line) for line in (out / "kernels.jsonl").read_text().splitlines()]
    figures = json.loads(phases.read_text())
    figures.update(wall=wall, cpu=cpu, compiles=sum(r.get("compile_us", 0) for r in records) / 1e6, count=len(records))
    return figures


def _real(program: list[str], folder: Path) -> dict[str, float]:
    """The program run for real on this machine's GPU, caches cold: its wall time and phases."""
    phases = folder / "real.json"
    caches = {"TRITON_CACHE_DIR": str(folder / "triton"), "TORCHINDUCTOR_CACHE_DIR": str(folder / "inductor")}
    env = {**os.environ, **caches, "TRACE_TARGET_PHASES": str(phases)}
    wall, _ = _timed([sys.executable, str(PHASES), *program], env)
    figures = json.loads(phases.read_text())
    return {"real": wall, "real_dynamo": figures["dynamo"]}


def _one_run(program: list[str], out: Path, real: bool) -> dict[str, float]:
    bare, bare_cpu = _timed([sys.executable, "-c", "import torch"])
    measured = subprocess.run([sys.executable, "-c", TORCH_COMPILE_IMPORTS], capture_output=True, text=True, check=True)
    imports = float(measured.stdout)
    figures = _trace(program, out)
    figures.update(bare=bare, bare_cpu=bare_cpu, compile_imports=imports)
    compiled = figures["dynamo"] > 0  # a program that never calls torch.compile owes none of its imports
    own = max(0.0, figures["dynamo"] - figures["triton_in_dynamo"])
    figures["torch_compile"] = (figures["compile_imports"] if compiled else 0.0) + own
    figures["dynamo_own"] = own
    figures["rest"] = figures["run"] - figures["dynamo"] - figures["triton_outside"]
    figures["tail"] = figures["wall"] - figures["started"] - figures["run"]
    figures["ratio"] = figures["wall"] / (figures["compiles"] + bare)
    figures["ratio_with"] = figures["wall"] / (figures["compiles"] + bare + figures["torch_compile"])
    if real:
        out.mkdir(parents=True, exist_ok=True)
        figures.update(_real(program, Path(tempfile.mkdtemp(dir=out.parent))))
        figures["ratio_real"] = figures["wall"] / figures["real"]
    return figures


def _load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def _spread(runs: list[dict[str, float]], key: str) -> str:
    values = sorted(run[key] for run in runs)
    return f"{statistics.median(values):.2f}x (runs: {', '.join(f'{v:.2f}' for v in values)})"


def _report(program: list[str], runs: list[dict[str, float]], load: str) -> None:
    median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    wall, compiles, bare, own = median["wall"], median["compiles"], median["bare"], median["torch_compile"]
    print(f"program: {' '.join([os.path.relpath(program[0]), *program[1:]])}")
    print(f"  {median['count']:.0f} compiles, medians of {len(runs)} runs")
    print(f"machine: {os.cpu_count()} CPUs, load average (1/5/15 min) {load}")
    print(f"trace --target sm90:              {wall:6.2f} s")
    print(f"Triton compiles it captured:      {compiles:6.2f} s")
    print(f"python -c 'import torch':         {bare:6.2f} s")
    print(f"ratio to Triton's compiles alone: {_spread(runs, 'ratio')}")
    counted = f"its imports: {median['compile_imports']:.2f} s" if median["dynamo"] else "the program does not call it"
    print(f"torch.compile's own work:         {own:6.2f} s  ({counted})")
    print(f"ratio with it: {_spread(runs, 'ratio_with')}  (goal: at most 1.3x; trace / (compiles + torch + that))")
    print(f"CPU time (less sensitive to load): trace {median['cpu']:.2f} s, import torch {median['bare_cpu']:.2f} s")
    print("where the trace's time went (medians of each run's parts):")
    print(f"  python, import torch, simulated GPU start: {median['started']:6.2f} s  (bare import torch {bare:.2f} s)")
    print(f"  torch.compile (Triton compiles excluded):  {median['dynamo_own']:6.2f} s")
    print(f"  Triton compiles:                           {compiles:6.2f} s")
    if median["rest"] >= 0:
        rest = median["rest"]
        print(f"  the rest of the program:                   {rest:6.2f} s  (torch.compile's imports, eager ops)")
    else:  # Inductor's template candidates compile in threads: their times overlap
        print("  the rest of the program:                   (the compiles overlapped: their sum exceeds the run)")
    print(f"  tritonscope start and finish, exit:        {median['tail']:6.2f} s")
    if "real" in median:
        print(f"the program run for real on this machine's GPU, caches cold: {median['real']:6.2f} s")
        print(f"  (torch.compile's compiles there: {median['real_dynamo']:.2f} s, Triton's included)")
        print(f"ratio to it: {_spread(runs, 'ratio_real')}  (trace --target sm90 / the real run)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--real", action="store_true", help="also run each program for real on this machine's GPU")
    parser.add_argument("--program", nargs=argparse.REMAINDER, help="one program to trace, then its arguments (last)")
    options = parser.parse_args()
    programs = [options.program] if options.program else PROGRAMS
    with tempfile.TemporaryDirectory() as folder:
        for number, program in enumerate(programs):
            command = [str(Path(program[0]).resolve()), *program[1:]]
            load = _load()
            runs = [_one_run(command, Path(folder) / f"p{number}run{run}", options.real) for run in range(options.runs)]
            if number:
                print()
            _report(program, runs, f"{load} before, {_load()} after")


if __name__ == "__main__":
    main()
