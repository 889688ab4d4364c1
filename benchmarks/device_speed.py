"""Issue 55 item 22's four speed ratios, and the explorer's (issue 50 item 3), at several trees of
the repository, in one device call (the exact call: benchmarks/device_speed.md). From the root:

    python3 benchmarks/device_speed.py [--out DIR] [--seconds 540] [--dry-run]

Trees: "head" is this checkout; every other is a `git archive` tarball carried as
.carry/trees/N-NAME.tar.gz (N: its place in the table, NAME: its commit), unpacked into a work
folder. The carried wheels (.carry/wheels/*.whl: textual and what it needs beyond the machine's
packages) are installed with `pip install --no-index --no-deps --target` into a private folder
put on every run's path after the tree; the machine's site-packages are left alone.

Benchmarks, each run as its own process pinned (taskset) to two cores of its own, as the 2-core
machine the issue measured on: the four of item 22 (the head's scripts for every tree: they are
the same at every commit measured, and run that tree's tritonscope through PYTHONPATH) and
benchmarks/explore.py (the tree's own: it drives the explorer's internals; trees whose script does
not yet take --rounds are left out). Runs of one benchmark at every tree are queued next to each
other, so they run at the same time on different cores, and each round puts them on other cores
than the round before.
A run that would not end before --seconds is not started; one still running then is ended.

Writes into $OUT (or --out): speed.md (the table: each figure per tree, with the load average at
each run's start and end and its cores), speed.json (the same, with every run's output) and
logs.tar.gz. --dry-run: tiny repeat counts, one round, for a check on any machine.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CARRY = ROOT / ".carry"
# taskset's pinning, without taskset: the cores set, then the benchmark exec'd (its children inherit them)
PINNED = (
    "import os, sys; os.sched_setaffinity(0, map(int, sys.argv[1].split(','))); os.execv(sys.argv[2], sys.argv[2:])"
)
KEEP_S = 15.0  # kept at the end for the table and the packing

# name: (script, arguments, arguments under --dry-run, the tree's own script)
BENCHMARKS = {
    "sweep": ("sweep.py", [], ["--runs", "1"], False),
    "explore": ("explore.py", [], ["--runs", "1", "--rounds", "1"], True),
    "passes": ("passes.py", ["--runs", "3"], ["--runs", "1"], False),
    "overhead": ("overhead.py", [], ["--runs", "1"], False),
    "render": ("render.py", [], ["--runs", "1"], False),
}
# name: [(figure, the pattern of its line; the first group is the figure)]
ROW = r"\s+[\d.]+s\s+[\d.]+s\s+(\d+\.\d+)x"  # overhead.py's row: ours, the baseline, the ratio
FIGURES = {
    "overhead": [
        ("dump --json cold / bare compile (<= 1.2x)", r"^dump --json, cold cache" + ROW),
        ("dump --json cold / bare, CPU", r"^dump --json, cold, CPU" + ROW),
        ("dump --json warm / bare (<= 1.5x)", r"^dump --json, warm cache" + ROW),
        ("dump, first run ever / bare", r"^dump, first run ever" + ROW),
    ],
    "passes": [
        ("passes / dump, cold (<= 2x)", r"ratio passes/dump: (\d+\.\d+)x"),
        ("passes / dump, cold, CPU", r"^cold, CPU .*?: (\d+\.\d+)x;"),
        ("passes --show / warm dump (<= 1.2x)", r"tritongpu-pipeline [\d.]+ s: (\d+\.\d+)x"),
    ],
    "render": [
        ("terminal / --json (<= 1.5x)", r"ratio terminal / --json: (\d+\.\d+)x"),
        ("terminal / --json, CPU", r"^CPU: terminal .*: (\d+\.\d+)x"),
    ],
    "sweep": [
        ("diff 8 variants, -j 1 / -j 2 (>= 1.75x)", r"ratio -j1/-j2: (\d+\.\d+)x"),
        ("diff -j 1, s", r"-j 1:\s+(\d+\.\d+) s"),
        ("diff -j 2, s", r"-j 2:\s+(\d+\.\d+) s"),
        ("diff CPU -j 2 / -j 1", r"^CPU \(process and children\): .*: (\d+\.\d+)x"),
    ],
    "explore": [
        ("explore: first screen / bare (<= 1.3x)", r"^1\. .*: (\d+\.\d+)x"),
        ("explore: cursor move median ms (<= 50)", r"^2\. .*median (\d+\.\d+) ms, worst"),
        ("explore: cursor move worst ms", r"^2\. .*median \d+\.\d+ ms, worst (\d+\.\d+) ms \(target"),
        ("explore: changed constexpr median / bare (<= 1.2x)", r"^3\. .*: median (\d+\.\d+)x"),
        ("explore: changed constexpr worst / bare (<= 1.2x)", r"^3\. .*worst (\d+\.\d+)x"),
        ("explore: fused attention change / bare", r"\(one round\): .* (\d+\.\d+)x"),
        ("explore: a variant seen before, ms (<= 100)", r"^4\. .* in (\d+) ms"),
    ],
}


def install_wheels(work: Path) -> Path | None:
    """The carried wheels into WORK/site (pip --no-index --no-deps --target; a wheel pip refuses is
    unpacked as the zip it is), or None where none is carried."""
    wheels = sorted((CARRY / "wheels").glob("*.whl"))
    if not wheels:
        return None
    site = work / "site"
    command = [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet", "--target", str(site)]
    done = subprocess.run([*command, *map(str, wheels)], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"pip install --target failed ({done.stderr.strip()[-300:]}); unpacking the wheels", flush=True)
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(site)
    print(f"wheels in {site}: {', '.join(w.name for w in wheels)}", flush=True)
    return site


def unpack_trees(work: Path, wanted: list[str] | None) -> dict[str, Path]:
    """{name: root}: each carried tarball unpacked, then this checkout as "head" (only those WANTED)."""
    trees = {}
    for tarball in sorted((CARRY / "trees").glob("*.tar.gz")):
        name = tarball.name.removesuffix(".tar.gz").partition("-")[2] or tarball.name.removesuffix(".tar.gz")
        if wanted is not None and name not in wanted:
            continue
        root = work / "trees" / name
        root.mkdir(parents=True)
        with tarfile.open(tarball) as archive:
            archive.extractall(root, filter="data")
        trees[name] = root
    if wanted is None or "head" in wanted:
        trees["head"] = ROOT
    return trees


def core_pairs() -> list[list[int]]:
    """Two cores per run; the first pair is left to this driver and the machine (where there are
    more than two pairs). Fewer than four cores: one slot, all of them."""
    cores = sorted(os.sched_getaffinity(0))
    pairs = [cores[i : i + 2] for i in range(0, len(cores) - 1, 2)]
    return pairs[1:] if len(pairs) > 2 else [cores]


def plan(trees: dict[str, Path], rounds: int, only: list[str]) -> list[tuple[int, str, str]]:
    """(round, benchmark, tree), the trees of one benchmark next to each other; a tree without
    the explorer's benchmark is left out of it."""
    runs = []
    for number in range(rounds):
        for bench, (script, _, _, own) in BENCHMARKS.items():
            if bench not in only:
                continue
            names = [n for n in trees if not own or _takes_rounds(trees[n] / "benchmarks" / script)]
            shift = number % max(len(names), 1)  # another order each round: other cores
            runs += [(number, bench, n) for n in names[shift:] + names[:shift]]
    return runs


def _takes_rounds(script: Path) -> bool:
    """The explorer's benchmark as issue 50 measures it (--rounds of constexpr changes): 5342bec on."""
    return script.exists() and "--rounds" in script.read_text()


def environment(tree: Path, site: Path | None, home: Path) -> dict[str, str]:
    """The tree first on the path, then the wheels; its own home, caches and temporary folder."""
    paths = [str(tree), *([str(site)] if site else []), *filter(None, [os.environ.get("PYTHONPATH")])]
    for folder in ("cache", "tmp"):
        (home / folder).mkdir(parents=True, exist_ok=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("TRITON_", "TRITONSCOPE_"))}
    return {
        **env,
        "PYTHONPATH": os.pathsep.join(paths),
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / "cache"),
        "TRITON_CACHE_DIR": str(home / "cache" / "triton"),
        "TMPDIR": str(home / "tmp"),
        "PYTHONUNBUFFERED": "1",
        "TERM": os.environ.get("TERM") or "xterm-256color",  # the explorer's pseudo-terminal, as a terminal's
    }


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def run_one(run: tuple[int, str, str], tree: Path, cores: list[int], context: dict) -> dict:
    """One benchmark at one tree on CORES, its output to a log; ended at the call's deadline."""
    number, bench, name = run
    script, arguments, dry_arguments, own = BENCHMARKS[bench]
    script_path = (tree if own else ROOT) / "benchmarks" / script
    home = context["work"] / "homes" / f"{bench}-{name}-{number}"
    command = [sys.executable, "-c", PINNED, ",".join(map(str, cores)), sys.executable, str(script_path)]
    command += dry_arguments if context["dry_run"] else arguments
    log = context["work"] / "logs" / f"{bench}-{name}-{number}.log"
    record = {"round": number, "benchmark": bench, "tree": name, "cores": cores, "load_start": load()}
    began = time.monotonic()
    with log.open("w") as handle:
        process = subprocess.Popen(
            command,
            cwd=tree,
            env=environment(tree, context["site"], home),
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # ended with all it started
        )
        try:
            record["exit"] = process.wait(timeout=max(1.0, context["deadline"] - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            record["exit"] = "ended at the deadline"
    record.update(wall_s=round(time.monotonic() - began, 1), load_end=load(), output=log.read_text(errors="replace"))
    record["figures"] = figures(bench, record["output"])
    shutil.rmtree(home, ignore_errors=True)
    print(f"{bench:9} {name:9} round {number} cores {cores}: exit {record['exit']}, {record['wall_s']} s, "
          f"load {record['load_start']} -> {record['load_end']}; {record['figures']}", flush=True)  # fmt: skip
    return record


def figures(bench: str, output: str) -> dict[str, float]:
    found = {}
    for label, pattern in FIGURES[bench]:
        match = re.search(pattern, output, re.MULTILINE)
        if match:
            found[label] = float(match.group(1))
    return found


def run_all(runs: list, trees: dict[str, Path], context: dict) -> list[dict]:
    """Each slot (two cores) takes the next run that still has time; the results in run order."""
    pending: queue.Queue = queue.Queue()
    for index, run in enumerate(runs):
        pending.put((index, run))
    results: dict[int, dict] = {}

    def slot(cores: list[int]) -> None:
        while True:
            try:
                index, run = pending.get_nowait()
            except queue.Empty:
                return
            if context["deadline"] - time.monotonic() < context["least_s"].get(run[1], 20.0):
                results[index] = {"round": run[0], "benchmark": run[1], "tree": run[2], "exit": "not run: out of time"}
                continue
            results[index] = run_one(run, trees[run[2]], cores, context)

    threads = [threading.Thread(target=slot, args=(cores,)) for cores in context["slots"]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [results[i] for i in sorted(results)]


def table(results: list[dict], trees: list[str]) -> str:
    """One line per figure, one column per tree: each round's value, and the loads it ran at."""
    lines = ["| figure | " + " | ".join(trees) + " |", "|---" * (len(trees) + 1) + "|"]
    for patterns in FIGURES.values():
        for label, _ in patterns:
            cells = []
            for tree in trees:
                values = [r["figures"][label] for r in results if r["tree"] == tree and label in r.get("figures", {})]
                cells.append(", ".join(f"{v:g}" for v in values) or "-")
            if any(c != "-" for c in cells):
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "| benchmark | tree | round | cores | exit | wall s | load start -> end |", "|---" * 7 + "|"]
    for r in results:
        cores = ",".join(map(str, r.get("cores", [])))
        lines.append(
            f"| {r['benchmark']} | {r['tree']} | {r['round']} | {cores} | {r['exit']} | {r.get('wall_s', '-')} "
            f"| {r.get('load_start', '-')} -> {r.get('load_end', '-')} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="where the files go (default: $OUT, else ./speed-out)")
    parser.add_argument("--seconds", type=float, default=540, help="the whole run's time (default 540)")
    parser.add_argument("--rounds", type=int, default=2, help="each benchmark at each tree, this many times")
    parser.add_argument("--dry-run", action="store_true", help="tiny repeat counts, one round: a check")
    parser.add_argument("--trees", help="only these trees (comma-separated names: head, a carried commit)")
    parser.add_argument("--only", help="only these benchmarks (comma-separated: " + ", ".join(BENCHMARKS) + ")")
    args = parser.parse_args()
    began = time.monotonic()
    out = Path(args.out or os.environ.get("OUT") or "speed-out").resolve()
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="speed-"))
    (work / "logs").mkdir()
    trees = unpack_trees(work, args.trees.split(",") if args.trees else None)
    context = {
        "work": work,
        "site": install_wheels(work),
        "dry_run": args.dry_run,
        "deadline": began + args.seconds - KEEP_S,
        "slots": core_pairs(),
        # a run is started only with this much time left (seconds, on the 16-core machine)
        "least_s": {"sweep": 60.0, "explore": 60.0, "passes": 30.0} if not args.dry_run else {},
    }
    print(f"trees: {', '.join(trees)}; slots: {context['slots']}; load {load()}", flush=True)
    only = args.only.split(",") if args.only else list(BENCHMARKS)
    results = run_all(plan(trees, 1 if args.dry_run else args.rounds, only), trees, context)
    text = table(results, list(trees))
    heading = f"speed at {len(trees)} trees, {time.monotonic() - began:.0f} s, python {sys.version.split()[0]}"
    (out / "speed.md").write_text(f"# {heading}\n\n{text}\n")
    (out / "speed.json").write_text(json.dumps({"trees": list(trees), "runs": results}, indent=1))
    with tarfile.open(out / "logs.tar.gz", "w:gz") as archive:
        archive.add(work / "logs", arcname="logs")
    print(f"\n{heading}; in {out}: speed.md, speed.json, logs.tar.gz\n{text}")
    shutil.rmtree(work, ignore_errors=True)
    failed = [r for r in results if r.get("exit") != 0]
    return 1 if failed and args.dry_run else 0


if __name__ == "__main__":
    sys.exit(main())
