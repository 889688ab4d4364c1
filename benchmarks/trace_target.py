"""What `trace --target sm90` costs beyond the compiles it makes, measured in one run.

The wall time of `tritonscope trace --target sm90` on a small torch.compile program (the fidelity
program of tests/kernels/fidelity/compile_program.py, or one given) against the sum of the compile
times Triton reports for the kernels it captured, plus one bare `python -c "import torch"` (the
program must import torch in any case). What is left is torch.compile's own work (tracing,
lowering, code generation) and the simulated device. Goal: at most 1.3x.

Run: python benchmarks/trace_target.py [--program FILE] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAM = Path(__file__).resolve().parent.parent / "tests" / "kernels" / "fidelity" / "compile_program.py"


def _timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def _trace(program: Path, out: Path) -> tuple[float, float, int]:
    """(wall seconds of the trace, seconds Triton spent compiling, compiles)."""
    wall = _timed(
        [
            sys.executable,
            "-m",
            "tritonscope",
            "trace",
            "--target",
            "sm90",
            "-o",
            str(out),
            "--force",
            "--",
            sys.executable,
            str(program),
        ]
    )
    records = [json.loads(line) for line in (out / "kernels.jsonl").read_text().splitlines()]
    return wall, sum(r.get("compile_us", 0) for r in records) / 1e6, len(records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", type=Path, default=PROGRAM)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    walls, compiles, imports = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        for run in range(options.runs):
            imports.append(_timed([sys.executable, "-c", "import torch"]))
            wall, compiling, count = _trace(options.program, Path(folder) / f"run{run}")
            walls.append(wall)
            compiles.append(compiling)
    wall, compiling, bare = statistics.median(walls), statistics.median(compiles), statistics.median(imports)
    print(f"program: {options.program} ({count} compiles), medians of {options.runs} runs")
    print(f"trace --target sm90:              {wall:6.2f} s")
    print(f"Triton compiles it captured:      {compiling:6.2f} s")
    print(f"python -c 'import torch':         {bare:6.2f} s")
    print(f"ratio: {wall / (compiling + bare):.2f}x  (goal: at most 1.3x)")


if __name__ == "__main__":
    main()
