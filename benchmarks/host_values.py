"""What values computed on the host cost `trace --target sm90` on the corpus's largest program, in one run.

Issue 51's goal: a trace with host values at most 1.5x today's trace of the same program, and the
peak memory. The program (--program) is traced three ways:

- today: `--values stop` on the program with its reads taken out (nothing logged; it reads nothing);
- logged: `--values host` (the default) on that same program: every operator on device tensors is
  logged, none computed: the price a program that never reads pays;
- read: `--values host` on the program printing its loss each step (`loss.item()`): every step's
  forward, backward and optimizer update computed on the host as well.

The programs: seq2seq_dropout_train (the default: the corpus's largest, 211 compiles on the H200;
it prints its loss each step, so today's variant has that read taken out) and llama_train (69
compiles, the largest of the H100's corpus; it reads nothing, so the read variant prints its loss).

The machine may be shared (another engineer's load moves a wall time more than the values do), so
the three traces of a run go in a rotating order (run 1: today, logged, read; run 2: logged, read,
today; ...), each with the load average just before it, and beside the wall time each trace's CPU
time (user and system, of the trace and every process it waited for: os.wait4), which the load
moves less. A first trace, not counted, warms the disk's caches. Printed: each trace's figures, the
median ratios against today (wall and CPU), where the host's time went (host_values.json: the
operators logged and computed and the seconds computing them) and each trace's peak resident memory.

Run: python benchmarks/host_values.py [--program seq2seq_dropout_train|llama_train] [--runs N]
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
PROGRAMS = HERE.parent / "tests" / "programs"
LLAMA_READ = ("        loss.backward()\n", "        loss.backward()\n        print('loss', loss.item())\n")
SEQ2SEQ_READ = ('print(f"{name} step {number}: loss {loss.item():.4f}")', 'print(f"{name} step {number}")')
# program -> (the line today's variant has, the line the read variant has)
VARIANTS = {"seq2seq_dropout_train": SEQ2SEQ_READ[::-1], "llama_train": LLAMA_READ}
MODES = ("today", "logged", "read")


def _variants(program: str, folder: Path) -> dict[str, tuple[Path, str]]:
    """Mode -> (the program file it traces, its --values)."""
    text = (PROGRAMS / f"{program}.py").read_text()
    without, with_read = VARIANTS[program]
    if without not in text and with_read not in text:
        raise SystemExit(f"{program}.py has neither {without!r} nor {with_read!r}: update VARIANTS")
    quiet, reading = folder / f"{program}_no_reads.py", folder / f"{program}_reads.py"
    quiet.write_text(text.replace(with_read, without))
    reading.write_text(text.replace(without, with_read))
    (folder / "corpus.py").write_text((PROGRAMS / "corpus.py").read_text())
    return {"today": (quiet, "stop"), "logged": (quiet, "host"), "read": (reading, "host")}


def _traced(program: Path, values: str, out: Path) -> dict:
    command = [sys.executable, "-m", "tritonscope", "trace", "-t", "sm90", "--values", values, "-o", str(out)]
    command += ["--force", "--", sys.executable, str(program)]
    load = os.getloadavg()[0]
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    with (
        open(out.parent / f"{out.name}.stdout", "w+") as stdout,
        open(out.parent / f"{out.name}.stderr", "w+") as stderr,
    ):
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=env)
        _, status, usage = os.wait4(process.pid, 0)  # the trace's CPU time and its waited-for children's
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        stdout.seek(0), stderr.seek(0)
        printed, said = stdout.read(), stderr.read()
    if process.returncode != 0:
        raise SystemExit(f"trace failed ({process.returncode}): {said[-2000:]}")
    summary = out / "host_values.json"
    figures = json.loads(summary.read_text()) if summary.exists() else {}
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall_s": wall, "cpu_s": cpu, "load": load, **figures, "stdout": printed}


def _run(variants: dict, folder: Path, run: int) -> dict[str, dict]:
    order = MODES[run % 3 :] + MODES[: run % 3]
    found = {}
    for mode in order:
        program, values = variants[mode]
        found[mode] = _traced(program, values, folder / f"{mode}{run}")
    line = ", ".join(
        f"{mode} {found[mode]['wall_s']:.1f} s wall / {found[mode]['cpu_s']:.1f} s CPU (load {found[mode]['load']:.1f})"
        for mode in order
    )
    print(f"run {run + 1}: {line}", flush=True)
    return found


def _report(rows: list[dict[str, dict]]) -> None:
    median = statistics.median
    for mode in ("logged", "read"):
        wall = median(r[mode]["wall_s"] / r["today"]["wall_s"] for r in rows)
        cpu = median(r[mode]["cpu_s"] / r["today"]["cpu_s"] for r in rows)
        loads = "/".join(f"{r[mode]['load']:.1f}" for r in rows)
        print(f"median ratio {mode} / today: {wall:.2f}x wall, {cpu:.2f}x CPU (goal <= 1.5x; loads {loads})")
    last = rows[-1]["read"]
    print(f"  operators logged {last.get('recorded')}, computed on the host {last.get('computed')}, ", end="")
    print(
        f"in {last.get('host_seconds')} s (median over runs {median(r['read'].get('host_seconds', 0) for r in rows)} s)"
    )
    print(f"  values read: {[line for line in last['stdout'].splitlines() if 'loss' in line][:4]}")
    for mode in MODES:
        peaks = [r[mode].get("peak_resident", 0) / (1 << 20) for r in rows]
        print(f"  peak resident memory of the traced program, {mode}: {max(peaks):.0f} MiB (runs: ", end="")
        print(", ".join(f"{p:.0f}" for p in peaks) + ")")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", choices=sorted(VARIANTS), default="seq2seq_dropout_train")
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="host-values-bench-"))
    variants = _variants(options.program, folder)
    print(f"{options.program}, {options.runs} run(s); load average before: {os.getloadavg()}", flush=True)
    _traced(*variants["today"], folder / "warm")  # not counted: the first trace warms the disk's caches
    rows = [_run(variants, folder, run) for run in range(options.runs)]
    _report(rows)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
