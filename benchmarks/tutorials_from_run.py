"""How many of the kernels Triton's tutorials define `dump -k KERNEL --from-run` gives machine code
for (issue 43, item 3), on this machine's simulated GPU: each kernel `list` finds in each tutorial
(helpers aside), dumped from the tutorial's own run, and what stopped the others.

    python benchmarks/tutorials_from_run.py TUTORIALS [--targets sm90,sm100,gfx950] [--jobs 2] [--json OUT]

TUTORIALS is a folder of the tutorials (`python/tutorials` of a Triton checkout of the release
installed; its `gluon/` folder included). Each kernel is dumped for the first of TARGETS, then for
the next where that gave no machine code, SASS or AMDGCN (a Blackwell tutorial's kernels need
sm100, as their reader's GPU would be; block-scaled matmul's CDNA4 kernel gfx950); where the
run stopped at a read of a device value the host could not compute, again with `--values zero`, as the
error's hint says. Prints one line per kernel (the target that gave machine code, else why not)
and the counts; each dump runs in a process of its own, JOBS at a time. The tutorials import what
their own runs need: 04-low-memory-dropout needs `tabulate` installed (else its two kernels are
not listed, and the count is of 43). Reading Triton 3.6's
tutorials from a mirror of Triton:

    git -C TRITON archive v3.6.0 python/tutorials | tar -x -C /tmp/t
    python benchmarks/tutorials_from_run.py /tmp/t/python/tutorials --targets sm90,sm100,gfx950
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def tritonscope(*args: str, timeout: float) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "tritonscope", *args]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, -1, "", f"timed out after {timeout:g} s")


def kernels(file: Path) -> list[str]:
    """The kernels (not helpers) `list` finds in FILE."""
    listed = tritonscope("list", str(file), "--json", timeout=300)
    if listed.returncode != 0:
        print(f"{file.name}: list failed: {listed.stderr.strip().splitlines()[:1]}", file=sys.stderr)
        return []
    return [k["name"] for k in json.loads(listed.stdout)["kernels"] if not k["is_helper"]]


def from_run(file: Path, kernel: str, targets: list[str]) -> dict:
    """One kernel's `dump --from-run` for each target in turn until one gives SASS: the target that
    did, else the first target's exit status and first error line."""
    outcome: dict = {}
    for target in targets:
        words = ["dump", str(file), "-k", kernel, "--from-run", "-t", target, "--json"]
        done, values = tritonscope(*words, timeout=900), ""
        if done.returncode != 0 and "--values zero" in done.stderr:  # as the hint says: reads go on
            done, values = tritonscope(*words, "--values", "zero", timeout=900), "zero"
        said = [line for line in done.stderr.splitlines() if line.strip()]
        sass = done.returncode == 0 and bool({"sass", "amdgcn"} & set(json.loads(done.stdout)["stages"]))
        why = next((line for line in said if line.startswith("error:")), said[-1] if said else "")
        if sass:
            return {"file": file.name, "kernel": kernel, "exit": 0, "sass": target, "why": "", "values": values}
        outcome = outcome or {"file": file.name, "kernel": kernel, "exit": done.returncode, "sass": "", "why": why}
        outcome.setdefault("values", values)
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tutorials", type=Path)
    parser.add_argument("--targets", default="sm90,sm100", help="comma-separated, tried in turn")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write every kernel's outcome here")
    options = parser.parse_args()
    targets = options.targets.split(",")
    files = sorted(options.tutorials.glob("*.py")) + sorted(options.tutorials.glob("gluon/*.py"))
    pairs = [(file, kernel) for file in files for kernel in kernels(file)]
    with ThreadPoolExecutor(options.jobs) as pool:
        outcomes = list(pool.map(lambda pair: from_run(*pair, targets), pairs))
    for outcome in outcomes:
        mark = f"SASS {outcome['sass']}" if outcome["sass"] else f"exit {outcome['exit']}"
        flag = "--values zero" if outcome["values"] else ""  # the run stopped at a read with no flag
        print(f"{outcome['file']:<34} {outcome['kernel']:<40} {mark:<10} {flag:<13} {outcome['why'][:160]}")
    for target in targets:
        given = sum(o["sass"] == target for o in outcomes)
        print(f"{given} of {len(outcomes)} kernels give machine code with --from-run -t {target}")
    zero = sum(bool(o["sass"] and o["values"]) for o in outcomes)
    print(f"{zero} of them only with --values zero (the run stopped at a read of a value the host did not compute)")
    given = sum(bool(o["sass"]) for o in outcomes)
    print(f"{given} of {len(outcomes)} in all (targets tried in turn: {options.targets})")
    if options.json:
        options.json.write_text(json.dumps(outcomes, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
