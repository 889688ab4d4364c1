"""One device call that collects the GPU ground truth of issues 51, 52 and 54 (the exact call:
benchmarks/device_round5.md). From the repository's root on the GPU machine:

    python3 benchmarks/device_round5.py [--out DIR] [--seconds 510]

1. the carried wheels (.carry/wheels/*.whl: typer pinned as pyproject.toml pins it) installed into
   a private folder put on every part's path, with the repository;
2. issue 52, alone on the GPU: benchmarks/launch_ground_truth.py (the launch set timed, and the
   GPU's copy, L2, matmul and launch figures);
3. then at once:
   - issue 51: tests/programs/capture_h100.py --set host-values (each new program traced twice
     with cold caches, as the corpus was);
   - issue 54: benchmarks/recompile_ground_truth.py (the server program under Triton's and
     torch.compile's hooks, and traced);
4. everything packed into $OUT, seven files (a call brings back eight at most):

   launch_truth.json        issue 52: every case's time, grid, registers; the GPU's figures
   corpus_round5.json       issue 51: what each trace compiled and launched (capture_h100's summary)
   corpus_texts.tar.gz      issue 51: the PTX and kernel sources that summary names by digest
   recompiles_truth.json    issue 54: every compile, its phase, specialization and launch
   server_capture.tar.gz    issue 54: the `tritonscope trace` capture of the server on the GPU
   logs.tar.gz              every part's output
   (driver.log              this script's output, written by the call's `tee`)

Each part has its own time budget inside --seconds (step 2 at most 170 s; step 3 what is left
but 30 s for the packing), ends itself by then and keeps what it finished; a part that still
overruns is ended, and what it wrote so far is packed. The last lines printed are a table: each
part's exit code, time and headline figures.

Here, without a GPU, --dry-run runs the same steps on small CPU stand-ins (the launch set on
Triton's interpreter, one corpus program under `trace --target sm90`, the server program on the
CPU) into --out, to check the driver and its packing.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHEELS = ROOT / ".carry" / "wheels"
FILES = {  # name in $OUT: where a part leaves it, under the work folder
    "launch_truth.json": "launch/launch_truth.json",
    "corpus_round5.json": "corpus/corpus_h100.json",
    "corpus_texts.tar.gz": "corpus/texts.tar.gz",
    "recompiles_truth.json": "recompiles/recompiles_truth.json",
    "server_capture.tar.gz": "recompiles/server_capture.tar.gz",
}
PACKING_S = 30.0  # kept at the end for packing
FILE_LIMIT = 15 * 2**20  # bytes: a file that comes back from the device holds 16 MiB at most
LAUNCH_SET_S = 170.0  # issue 52's part at most


def command(part: str, work: Path, dry_run: bool, seconds: float) -> list[str]:
    """A part's command, ending itself within SECONDS: the GPU's, or its CPU stand-in with --dry-run."""
    python = sys.executable
    if part == "launch":
        found = [python, "benchmarks/launch_ground_truth.py", "--out", str(work / "launch")]
        return found + (["--cpu", "--kernels", "reduce_rows"] if dry_run else ["--budget", f"{seconds - 15:.0f}"])
    if part == "corpus":
        found = [python, "tests/programs/capture_h100.py", "--set", "host-values", "--out", str(work / "corpus")]
        stand_in = ["--target", "sm90", "--runs", "1", "compiled_optimizer"]  # a short corpus program, simulated
        found += stand_in if dry_run else ["--jobs", "6", "--limit", "300"]
        return found + ["--budget", f"{seconds - 15:.0f}"]
    found = [python, "benchmarks/recompile_ground_truth.py", "--out", str(work / "recompiles")]
    found += ["--requests", "4", "--max-batch", "4", "--max-seq", "32"] if dry_run else []
    return found + ["--budget", f"{seconds - 25:.0f}"]


def environment(work: Path) -> dict[str, str]:
    """The repository and the carried wheels (unpacked once) on every part's path."""
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    wheels = sorted(WHEELS.glob("*.whl"))
    if wheels:
        site = work / "site"
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(site)
        paths.insert(1, str(site))
    print(f"wheels: {', '.join(w.name for w in wheels) or 'none carried'}", flush=True)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PYTHONUNBUFFERED": "1"}


def run_part(name: str, command: list[str], env: dict, log: Path, limit: float) -> dict:
    """Runs one part, its output to LOG; past LIMIT it is ended with all it started."""
    began = time.monotonic()
    print(f"start {name}: {' '.join(command)}", flush=True)
    with log.open("w") as handle:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            code: int | str = process.wait(timeout=max(1.0, limit))
        except subprocess.TimeoutExpired:
            end(process)
            code = "ended at its limit"
    wall = round(time.monotonic() - began, 1)
    print(f"end   {name}: exit {code}, {wall} s", flush=True)
    return {"exit": code, "wall_s": wall}


def end(process: subprocess.Popen) -> None:
    """Asks a part to end (it ends what it started, and keeps what it finished), then makes it."""
    for sig, grace in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def pack(work: Path, out: Path) -> list[str]:
    """The parts' results into OUT (each file written beside, then renamed; one over FILE_LIMIT
    gzipped, as NAME.gz), and their logs."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, where in FILES.items():
        source = work / where
        if not source.exists():
            continue
        if source.stat().st_size > FILE_LIMIT and not name.endswith(".gz"):
            name = f"{name}.gz"
            (out / f"{name}.partial").write_bytes(gzip.compress(source.read_bytes()))
        else:
            shutil.copyfile(source, out / f"{name}.partial")
        (out / f"{name}.partial").replace(out / name)
        written.append(name)
    logs = sorted(p for p in work.rglob("*.log") if p.is_file())
    with tarfile.open(out / "logs.tar.gz.partial", "w:gz") as archive:
        for log in logs:
            archive.add(log, arcname=str(log.relative_to(work)))
    (out / "logs.tar.gz.partial").replace(out / "logs.tar.gz")
    return [*written, "logs.tar.gz"]


def headlines(work: Path) -> dict[str, str]:
    """A line of figures per part, read from what it wrote."""
    found = {}
    launch = _json(work / FILES["launch_truth.json"])
    if launch:
        statuses = Counter(c["status"] for k in launch.get("kernels", {}).values() for c in k["cases"])
        peaks = launch.get("peaks", {})
        figures = [f"{sum(statuses.values())} cases: " + ", ".join(f"{n} {status}" for status, n in statuses.items())]
        for figure, unit, spelled in (
            ("dram_copy", "gb_per_s", "GB/s"),
            ("l2_copy", "gb_per_s", "GB/s"),
            ("matmul_bf16", "tflop_per_s", "TFLOP/s"),
        ):
            value = peaks.get(figure, {}).get(unit)
            if isinstance(value, float):
                figures.append(f"{figure} {value:.0f} {spelled}")
        found["launch"] = ", ".join(figures)
    corpus = _json(work / FILES["corpus_round5.json"])
    if corpus:
        runs = corpus.get("runs", {})
        found["corpus"] = "; ".join(
            f"{p} {'/'.join(str(len(r.get('compiles', []))) for r in by_run.values())}" for p, by_run in runs.items()
        )
    truth = _json(work / FILES["recompiles_truth.json"])
    if truth:
        late = [r for r in truth.get("compiles", []) if r.get("phase") == "serving" and not r.get("cache_hit")]
        found["recompiles"] = (
            f"{truth.get('status')}: {len(late)} compiles after warmup, "
            f"{sum(r.get('phase') == 'serving' for r in truth.get('recompiles', []))} torch.compile recompiles after it"
        )
    return found


def _json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="where the files go (default: $OUT, else ./round5-out)")
    parser.add_argument("--seconds", type=float, default=510, help="the whole run's time (default 510)")
    parser.add_argument("--dry-run", action="store_true", help="small CPU stand-ins for each part, no GPU")
    args = parser.parse_args()
    began = time.monotonic()
    out = Path(args.out or os.environ.get("OUT") or "round5-out").resolve()
    work = Path(tempfile.mkdtemp(prefix="round5-"))
    env = environment(work)
    envs = {"launch": env, "corpus": env, "recompiles": env}
    if args.dry_run:  # the server program on the CPU, on Triton's interpreter (corpus.py)
        envs["recompiles"] = {**env, "TRITONSCOPE_CORPUS_DEVICE": "cpu", "TRITON_INTERPRET": "1"}
    launch_s = min(LAUNCH_SET_S, args.seconds / 3)
    launch = command("launch", work, args.dry_run, launch_s)
    results = {"launch": run_part("launch", launch, envs["launch"], work / "launch.log", launch_s)}
    rest = args.seconds - (time.monotonic() - began) - PACKING_S
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        commands = {part: command(part, work, args.dry_run, rest) for part in ("corpus", "recompiles")}
        running = {
            part: pool.submit(run_part, part, commands[part], envs[part], work / f"{part}.log", rest + 5)
            for part in commands
        }
        results.update({part: future.result() for part, future in running.items()})
    written = pack(work, out)
    figures = headlines(work)
    print(f"\nround 5 on the device: {time.monotonic() - began:.0f} s; in {out}: {', '.join(written)}")
    print(f"{'part':<11} {'exit':<20} {'wall s':>7}  figures")
    for name, result in results.items():
        print(f"{name:<11} {str(result['exit']):<20} {result['wall_s']:>7}  {figures.get(name, 'nothing written')}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
