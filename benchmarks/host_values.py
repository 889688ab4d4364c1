"""What values computed on the host cost `trace --target sm90` on the corpus's largest program, in one run.

Issue 51's goal: a trace with host values at most 1.5x today's trace of the same program. The
program is tests/programs/llama_train.py (a 2-layer Llama's compiled training step, forward and
backward, and AdamW, twice), traced three ways, back to back:

- `--values stop`: today's trace (nothing logged, a read stops the program; llama_train reads none);
- `--values host` (the default): every operator on device tensors is logged, none computed (the
  program reads nothing): the price a program that never reads pays;
- `--values host` on the same program printing its loss each step (`loss.item()` after each
  backward): every step's forward, backward and AdamW update computed on the host as well.

A first trace, not counted, warms the disk's caches (the first of a run was up to 1.3x slower).
Printed: each trace's wall time, the ratios against the first, the seconds the host spent computing
values and the operators logged and computed (the capture's host_values.json), and each traced
program's peak resident memory; with the load average before and after (the machine may be shared).

Run: python benchmarks/host_values.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LARGEST = HERE.parent / "tests" / "programs" / "llama_train.py"
READS_LOSS = ("        loss.backward()\n", "        loss.backward()\n        print('loss', loss.item())\n")


def _traced(program: Path, values: str, out: Path) -> dict:
    command = [sys.executable, "-m", "tritonscope", "trace", "-t", "sm90", "--values", values, "-o", str(out)]
    command += ["--force", "--", sys.executable, str(program)]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"trace failed ({done.returncode}): {done.stderr[-2000:]}")
    summary = out / "host_values.json"
    figures = json.loads(summary.read_text()) if summary.exists() else {}
    return {"wall_s": wall, **figures, "stdout": done.stdout}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="host-values-bench-"))
    reading = folder / "llama_train_reads_loss.py"
    text = LARGEST.read_text()
    if READS_LOSS[0] not in text:
        raise SystemExit(f"{LARGEST} has no `loss.backward()` line to print the loss after")
    reading.write_text(text.replace(READS_LOSS[0], READS_LOSS[1]))
    (folder / "corpus.py").write_text((LARGEST.parent / "corpus.py").read_text())
    print(f"load average before: {os.getloadavg()}")
    _traced(LARGEST, "stop", folder / "warm")  # not counted: the first trace warms the disk's caches
    rows = []
    for run in range(options.runs):
        today = _traced(LARGEST, "stop", folder / f"stop{run}")
        logged = _traced(LARGEST, "host", folder / f"host{run}")
        computed = _traced(reading, "host", folder / f"reads{run}")
        rows.append((today, logged, computed))
        print(
            f"run {run + 1}: today {today['wall_s']:.1f} s; logged, none read {logged['wall_s']:.1f} s "
            f"({logged['wall_s'] / today['wall_s']:.2f}x); loss read each step {computed['wall_s']:.1f} s "
            f"({computed['wall_s'] / today['wall_s']:.2f}x)"
        )
    median = statistics.median
    logged_ratio = median(r[1]["wall_s"] / r[0]["wall_s"] for r in rows)
    read_ratio = median(r[2]["wall_s"] / r[0]["wall_s"] for r in rows)
    last = rows[-1]
    print(f"median ratio, operators logged and none read: {logged_ratio:.2f}x (goal <= 1.5x)")
    print(f"median ratio, the loss read each step: {read_ratio:.2f}x (goal <= 1.5x)")
    print(
        f"  operators logged {last[2].get('recorded')}, computed on the host {last[2].get('computed')}, "
        f"in {last[2].get('host_seconds')} s"
    )
    print(f"  losses read: {[line for line in last[2]['stdout'].splitlines() if line.startswith('loss')]}")
    for name, row in zip(("today", "logged", "loss read"), last, strict=True):
        peak = row.get("peak_resident", 0)
        print(f"  peak resident memory of the traced program, {name}: {peak / (1 << 20):.0f} MiB")
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
