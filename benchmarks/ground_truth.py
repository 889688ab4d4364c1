"""H100 ground truth for the per-line time model (issue 41): every kernel of the evaluation set
launched once under Nsight Compute, saved with the binary that ran, for offline use.

The set is tests/kernels/timing/eval_set.json (samples, liger-kernel's kernels, kernels of other
shapes), plus any sample it does not name. For each kernel this runs, as `tritonscope profile`
does (app/profile.py: the same NCU_OPTIONS, the kernel file's make_inputs and launch hooks):

    ncu -k regex:^KERNEL$ --launch-count 1 <NCU_OPTIONS> [more sections] -o report \\
        python3 benchmarks/ground_truth.py --launch SPEC

with the environment `trace` gives a program (captures/environment.py: environment_for_capture): every
kernel compiled afresh (TRITON_ALWAYS_COMPILE), each compile and the first launches logged. ncu
replays the kernel for its counters: a profile costs the program's start (torch, Triton's
compile) and a few replays, about ten seconds on the H100. Saved per kernel, in OUT/ground_truth.tar.gz:

    NAME/case.json     what was launched (file, kernel, size, options, held_out), the inputs'
                       shapes, ncu's exit code, the seconds it took, the ncu command
    NAME/ncu.csv       ncu's source page: counters per SASS instruction (what profile parses)
    NAME/ncu.log       ncu's and the program's stderr
    NAME/details.csv   ncu's details page: duration, occupancy, warp states, scheduler (where read)
    NAME/capture/      a `trace` capture: cache/ (cubin, ptx, ttgir, ttir, source, metadata json),
                       kernels.jsonl (source, file, specialization), launches.jsonl (grid, arguments)

OUT/summary.jsonl has one line per kernel, OUT/reports_N.tar ncu's reports (up to three files of
15 MiB), OUT/environment.json the GPU, driver, ncu and library versions, OUT/table.txt the table
printed at the end (each kernel's line is printed as it finishes). Results are packed after every
kernel, so a run cut short still brings back what it did; no kernel starts with less than
--min-time of --budget left, and those left are listed as skipped.

liger-kernel is pure Python: its wheel is carried to the GPU machine and unpacked onto the path.
Here:   pip download --no-deps liger-kernel==0.8.5 -d .carry/wheels   (.carry/ is ignored by git)
There, from the repository root:
    python3 -m zipfile -e .carry/wheels/liger_kernel-0.8.5-py3-none-any.whl .carry/site
    PYTHONUNBUFFERED=1 PYTHONPATH=$PWD:$PWD/.carry/site python3 benchmarks/ground_truth.py --out $OUT
Here, without a GPU: python benchmarks/ground_truth.py --dry-run (checks the set, prints the commands).
Read the data with benchmarks/time_model.py.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import importlib.metadata
import importlib.util
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EVAL_SET = ROOT / "tests" / "kernels" / "timing" / "eval_set.json"
# Kernel-level figures beside the source page (one or two replay passes each); kept only where ncu lists them.
MORE_SECTIONS = ("SpeedOfLight", "LaunchStats", "Occupancy", "WarpStateStats", "SchedulerStats")
REPORTS_LIMIT = 15 * 2**20  # bytes of ncu reports in one file (each file that comes back: 16 MiB at most)
REPORT_FILES = 3  # of the 8 files that come back
PACK_RESERVE = 20.0  # seconds kept at the end of --budget for the last packing
SKIPPED_FILES = (".llir", ".ncu-rep")  # the LLVM IR is large and not needed; reports go apart
BLACKWELL_MARKS = ("nvidia.blackwell", "tcgen05", "tensor_memory")  # a kernel file for sm100 and up


def eval_cases(manifest: Path = EVAL_SET) -> list[dict]:
    """The evaluation set: the manifest's cases, then every sample it does not name (not held out)."""
    from tritonscope.core.samples import all_samples

    cases = json.loads(manifest.read_text())["cases"]
    named = {c["file"] for c in cases}
    for sample in all_samples():
        if f"sample:{sample.name}" not in named and sample.kernels:
            cases.append(
                {
                    "name": sample.name,
                    "file": f"sample:{sample.name}",
                    "kernel": sample.kernels[0],
                    "held_out": False,
                    "note": "a sample the manifest does not name",
                }
            )
    return cases


def kernel_file(case: dict) -> Path:
    from tritonscope.core.samples import sample_path

    given = case["file"]
    return sample_path(given.removeprefix("sample:")) if given.startswith("sample:") else ROOT / given


def skip_reason(case: dict, capability: tuple[int, int] | None) -> str | None:
    """Why a case cannot run on this GPU: a kernel file for Blackwell (sm100) on an older GPU."""
    needs = case.get("needs_capability")
    text = kernel_file(case).read_text(errors="replace")
    marks = [m for m in BLACKWELL_MARKS if m in text]
    wanted = tuple(needs) if needs else ((10, 0) if marks else None)
    if wanted and capability and capability < wanted:
        why = f"uses {marks[0]}" if marks and not needs else "the manifest says so"
        return f"needs sm{wanted[0]}{wanted[1]} ({why}); this GPU is sm{capability[0]}{capability[1]}"
    return None


# ---------------------------------------------------------------- the program ncu runs


def launch(spec: dict) -> int:
    """Makes the inputs through the file's hooks, launches once, synchronizes. Nothing goes to
    stdout (ncu's CSV is there); a failure is one line on stderr and exit code 2."""
    try:
        with contextlib.redirect_stdout(sys.stderr):
            _launch(spec)
    except Exception as exc:  # noqa: BLE001 - the kernel file's code: said in one line
        lines = str(exc).strip().splitlines()
        print(f"ground truth launch: {type(exc).__name__}: {lines[0] if lines else ''}", file=sys.stderr)
        return 2
    return 0


def _launch(spec: dict) -> None:
    path = Path(spec["file"])
    sys.path.insert(0, str(path.parent))  # a kernel file may import its neighbours
    module_spec = importlib.util.spec_from_file_location(f"ground_truth_{path.stem}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    size = () if spec.get("size") is None else (spec["size"],)
    inputs = module.make_inputs(*size, device="cuda", **spec.get("inputs", {}))
    Path(spec["record"]).write_text(json.dumps([_describe(x) for x in inputs]))
    module.launch(*inputs, **spec.get("launch", {}))
    import torch

    torch.cuda.synchronize()


def _describe(value) -> dict:
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return {"shape": list(value.shape), "dtype": str(value.dtype), "stride": list(value.stride())}
    return {"value": value if isinstance(value, int | float | bool | str) else repr(value)}


# ---------------------------------------------------------------- profiling one kernel


def ncu_argv(ncu: str, case: dict, folder: Path, sections: tuple[str, ...]) -> list[str]:
    from tritonscope.app.profile import NCU_OPTIONS

    spec = {
        "file": str(kernel_file(case)),
        "size": case.get("size"),
        "inputs": case.get("inputs", {}),
        "launch": case.get("launch", {}),
        "record": str(folder / "inputs.json"),
    }
    more = [arg for section in sections for arg in ("--section", section)]
    report = ["-o", str(folder / "report"), "-f", "--import-source", "yes"]  # -f: a second try overwrites
    program = [sys.executable, str(Path(__file__).resolve()), "--launch", json.dumps(spec)]
    return [ncu, "-k", f"regex:^{case['kernel']}$", "--launch-count", "1", *NCU_OPTIONS, *more, *report, *program]


def run_bounded(argv: list[str], env: dict, stdout: Path, stderr: Path, timeout: float) -> tuple[int | None, float]:
    """(exit code, or None when stopped at `timeout`; seconds). The child gets a session of its own,
    so that ncu and the program under it are stopped together."""
    start = time.monotonic()
    with stdout.open("wb") as out, stderr.open("wb") as err:
        child = subprocess.Popen(
            argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env, start_new_session=True
        )
        try:
            code = child.wait(timeout=max(timeout, 1.0))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            code = None
    return code, time.monotonic() - start


def profile_case(ncu: str, case: dict, folder: Path, sections: tuple[str, ...], timeout: float) -> dict:
    """Runs one case under ncu into `folder`; its record (case.json) says how it went."""
    from tritonscope.captures.environment import environment_for_capture

    folder.mkdir(parents=True, exist_ok=True)
    capture = folder / "capture"
    capture.mkdir(exist_ok=True)  # the hook appends its logs there
    # One Triton cache for every kernel: Triton's own launcher modules, built with gcc at a first
    # launch, are built once. Every kernel is still compiled (TRITON_ALWAYS_COMPILE), and the hook
    # copies each compile into capture/cache.
    env = {**environment_for_capture(capture, launches=3), "TRITON_CACHE_DIR": str(folder.parent / ".triton-cache")}
    argv = ncu_argv(ncu, case, folder, sections)
    code, seconds = run_bounded(argv, env, folder / "ncu.csv", folder / "ncu.log", timeout)
    if code is not None and not _has_source_page(folder / "ncu.csv") and (folder / "report.ncu-rep").is_file():
        _import_page(ncu, folder / "report.ncu-rep", "source", folder / "ncu.csv", timeout=60)
    record = {
        **case,
        "kernel_file": str(kernel_file(case)),
        "ncu_exit": code,
        "seconds": round(seconds, 1),
        "timed_out": code is None,
        "sections": ["SourceCounters", *sections],
        "command": shlex.join(argv[: argv.index("--launch")] + ["--launch", "SPEC"]),
    }
    with contextlib.suppress(OSError, ValueError):
        record["inputs_seen"] = json.loads((folder / "inputs.json").read_text())
    (folder / "case.json").write_text(json.dumps(record, indent=1))
    return record


def _has_source_page(path: Path) -> bool:
    from tritonscope.parsers.ncu_source import parse

    try:
        return bool(parse(path.read_text(errors="replace")).instructions)
    except OSError:
        return False


def _import_page(ncu: str, report: Path, page: str, out: Path, timeout: float) -> subprocess.Popen | None:
    """ncu's `page` of a saved report as CSV into `out`; waits up to `timeout`, or not at all (0)."""
    argv = [ncu, "--import", str(report), "--csv", "--page", page]
    argv += ["--print-source", "cuda,sass"] if page == "source" else []
    with out.open("wb") as sink:
        child = subprocess.Popen(argv, stdout=sink, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    if timeout <= 0:
        return child
    try:
        child.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    return None


# ---------------------------------------------------------------- what one kernel's profile says


def summarize(folder: Path, record: dict) -> dict:
    """Samples, the hottest line and today's counts' agreement with it, from the saved files alone."""
    import time_model  # benchmarks/time_model.py, beside this file

    row = {
        "name": record["name"],
        "kernel": record["kernel"],
        "held_out": record.get("held_out", False),
        "seconds": record.get("seconds"),
        "launched": False,
    }
    if record.get("timed_out"):
        row["error"] = f"stopped after {record['seconds']} s"
        return row
    try:
        found = time_model.load_kernel(folder)
    except time_model.NoData as exc:
        row["error"] = str(exc) or _last_error(folder / "ncu.log")
        return row
    row["launched"] = True
    row.update(time_model.evaluate(found))
    return row


def _last_error(log: Path) -> str:
    try:
        lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "no log"
    marked = [line for line in lines if "ground truth launch:" in line or "==ERROR==" in line]
    return (marked or lines or ["no output"])[-1][:200]


# ---------------------------------------------------------------- packing what was done


def pack(work: Path, out: Path) -> None:
    """OUT/ground_truth.tar.gz (every kernel's folder; reports and LLVM IR left out; compressed
    fast, as it is written again after every kernel) and OUT/reports_N.tar (ncu's reports, while
    they fit), each written whole, then renamed."""
    kept = _files(work, lambda p: not p.name.endswith(SKIPPED_FILES) and ".triton-cache" not in p.parts)
    _write_tar(out / "ground_truth.tar.gz", kept, work, compressed=True)
    bundles: list[list[Path]] = [[] for _ in range(REPORT_FILES)]
    sizes = [0] * REPORT_FILES
    for path in _files(work, lambda p: p.name.endswith(".ncu-rep")):
        size = path.stat().st_size
        free = next((i for i in range(REPORT_FILES) if sizes[i] + size <= REPORTS_LIMIT), None)
        if free is not None:
            bundles[free].append(path)
            sizes[free] += size
    for number, bundle in enumerate(bundles, 1):
        if bundle:
            _write_tar(out / f"reports_{number}.tar", bundle, work, compressed=False)


def _files(work: Path, keep) -> list[Path]:
    return sorted(p for p in work.rglob("*") if p.is_file() and keep(p))


def _write_tar(target: Path, files: list[Path], base: Path, compressed: bool) -> None:
    partial = target.with_name(target.name + ".partial")
    options = {"mode": "w:gz", "compresslevel": 1} if compressed else {"mode": "w"}
    with tarfile.open(partial, **options) as tar:
        for path in files:
            tar.add(path, arcname=str(path.relative_to(base)))
    os.replace(partial, target)


def environment(ncu: str) -> dict:
    """The GPU, its driver and clocks, ncu's version, and the libraries' versions (not imported)."""

    def said(argv: list[str]) -> str:
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"not run: {exc}"

    query = "--query-gpu=name,compute_cap,driver_version,clocks.max.sm,clocks.sm,memory.total"
    versions = {}
    for package in ("torch", "triton", "liger-kernel", "typer", "rich", "pygments", "numpy"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "ncu": ncu,
        "ncu_version": said([ncu, "--version"]),
        "gpu": said(["nvidia-smi", query, "--format=csv"]),
        "python": sys.version,
        "versions": versions,
    }


def capability() -> tuple[int, int] | None:
    try:
        text = subprocess.run(
            ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.split()
        major, minor = text[0].split(".")
        return int(major), int(minor)
    except (OSError, subprocess.TimeoutExpired, IndexError, ValueError):
        return None


def listed_sections(ncu: str) -> tuple[str, ...]:
    """MORE_SECTIONS that this ncu lists (an unknown --section would fail every profile)."""
    try:
        text = subprocess.run([ncu, "--list-sections"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ()
    words = set(text.replace("|", " ").split())
    return tuple(s for s in MORE_SECTIONS if s in words)


# ---------------------------------------------------------------- the run


def table(rows: list[dict], notes: bool = True) -> str:
    """80 columns: a kernel a line (its hottest line: number, share of the samples, code), then
    what went wrong where something did."""
    lines = [f"{'kernel':<23} {'set':<4} {'ok':<3} {'samples':>8} {'top line':<27} {'rho':>5} {'s':>4}"]
    for r in rows:
        top = f"L{r['top_line'][1:]} {r['top_share']:.0%} {r.get('top_code', '')}" if r.get("top_line") else "-"
        rho = f"{r['spearman']:.2f}" if isinstance(r.get("spearman"), float) else "-"
        held = "held" if r.get("held_out") else "tune"
        ok = "yes" if r.get("launched") else "no"
        seconds = f"{r['seconds']:.0f}" if isinstance(r.get("seconds"), int | float) else "-"
        samples = r.get("samples", 0)
        lines.append(f"{r['name'][:23]:<23} {held:<4} {ok:<3} {samples:>8} {top[:27]:<27} {rho:>5} {seconds:>4}")
    said = [f"{r['name']}: {r['error']}" for r in rows if r.get("error")] if notes else []
    return "\n".join(lines + said)


def run(args: argparse.Namespace) -> int:
    from tritonscope.app.profile import find_ncu
    from tritonscope.core.errors import TritonscopeError

    started = time.monotonic()
    try:
        ncu = find_ncu()
    except TritonscopeError as exc:
        print(f"ncu: {exc.message}")
        return 2
    print(f"ncu: {ncu} ({'on PATH' if shutil.which('ncu') == ncu else 'not on PATH: found in the CUDA toolkit'})")
    out, work = Path(args.out), Path(args.work)
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (out / "environment.json").write_text(json.dumps(environment(ncu), indent=1))
    sections = () if args.source_only else listed_sections(ncu)
    print(f"sections: SourceCounters {' '.join(sections)}")
    cases = interleaved([c for c in eval_cases() if not args.only or c["name"] in args.only])
    rows = profile_all(ncu, cases, work, out, sections, args, started + args.budget)
    print("\n" + table(rows))
    (out / "table.txt").write_text(table(rows) + "\n")
    return 0


def interleaved(cases: list[dict]) -> list[dict]:
    """Samples, library kernels and the others in turn: a run cut short by its budget loses some of each."""
    kinds: dict[str, list[dict]] = {}
    for case in cases:
        kind = "sample" if case["file"].startswith("sample:") else case["name"].split("_")[0]
        kinds.setdefault(kind if kind in ("sample", "liger") else "other", []).append(case)
    queues = list(kinds.values())
    return [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]


def profile_all(ncu: str, cases: list[dict], work: Path, out: Path, sections, args, end: float) -> list[dict]:
    """Every case in turn; each one's summary is read in a thread while the next one runs."""
    gpu, imports, pending = capability(), [], []
    summaries = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    for number, case in enumerate(cases, 1):
        said = f"[{number}/{len(cases)}]"
        left = end - PACK_RESERVE - time.monotonic()
        reason = skip_reason(case, gpu) or (f"budget spent ({args.budget:g} s)" if left < args.min_time else None)
        if reason:
            print(f"{said} {case['name']}: skipped: {reason}")
            pending.append(_done({**_row_of(case), "error": f"skipped: {reason}"}))
            continue
        folder = work / case["name"]
        record = profile_case(ncu, case, folder, sections, min(args.timeout, left))
        if sections and _ncu_refused(folder, record):
            print(f"  {case['name']}: no source page with {' '.join(sections)}: again with SourceCounters alone")
            sections = ()
            record = profile_case(ncu, case, folder, sections, min(args.timeout, end - PACK_RESERVE - time.monotonic()))
        if (folder / "report.ncu-rep").is_file():
            imports.append(_import_page(ncu, folder / "report.ncu-rep", "details", folder / "details.csv", 0))
        pending.append(summaries.submit(_summarize_and_say, folder, record, out, said))
        pack(work, out)
    rows = [_result(future, case, end) for future, case in zip(pending, cases, strict=True)]
    summaries.shutdown(wait=False, cancel_futures=True)
    for child in filter(None, imports):  # the details pages, read from the reports while later kernels ran
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=max(1.0, end - 5 - time.monotonic()))
    pack(work, out)
    return rows


def _ncu_refused(folder: Path, record: dict) -> bool:
    """ncu printed no counters though the program did not fail (nor run out of time): the extra
    sections are suspected, and the kernel is profiled again without them."""
    log = (folder / "ncu.log").read_text(errors="replace") if (folder / "ncu.log").is_file() else ""
    return not record["timed_out"] and "ground truth launch:" not in log and not _has_source_page(folder / "ncu.csv")


def _row_of(case: dict) -> dict:
    return {"name": case["name"], "kernel": case["kernel"], "held_out": case.get("held_out", False), "launched": False}


def _done(row: dict) -> concurrent.futures.Future:
    future: concurrent.futures.Future = concurrent.futures.Future()
    future.set_result(row)
    return future


def _summarize_and_say(folder: Path, record: dict, out: Path, number: str) -> dict:
    try:
        row = summarize(folder, record)
    except Exception as exc:  # noqa: BLE001 - the raw files are what counts: a summary may fail
        row = {**_row_of(record), "seconds": record.get("seconds"), "error": f"summary failed: {exc!r}"[:200]}
    with (out / "summary.jsonl").open("a") as sink:
        sink.write(json.dumps(row) + "\n")
    print(f"{number} " + "\n  ".join(table([row]).splitlines()[1:]), flush=True)
    return row


def _result(future: concurrent.futures.Future, case: dict, end: float) -> dict:
    try:
        return future.result(timeout=max(1.0, end - 10 - time.monotonic()))
    except concurrent.futures.TimeoutError:
        return {**_row_of(case), "error": "profiled; summary not read in time"}


def dry_run() -> int:
    """Checks the set here (every file and kernel exists, hooks are there) and prints each command."""
    problems = 0
    cases = eval_cases()
    for case in cases:
        path = kernel_file(case)
        text = path.read_text() if path.is_file() else ""
        missing = [hook for hook in ("def make_inputs", "def launch") if hook not in text]
        if not path.is_file() or missing:
            problems += 1
            print(f"{case['name']}: {path} {'is missing' if not path.is_file() else 'has no ' + ', '.join(missing)}")
        argv = ncu_argv("ncu", case, Path("/tmp/ground-truth") / case["name"], MORE_SECTIONS)
        print(f"{case['name']} ({'held out' if case.get('held_out') else 'tuning'}): {shlex.join(argv[:-1])} SPEC")
    held = sum(bool(c.get("held_out")) for c in cases)
    print(f"{len(cases)} kernels, {held} held out; {problems} problems")
    return 1 if problems else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--out", default=os.environ.get("OUT", "ground-truth"), help="where the results go ($OUT)")
    parser.add_argument("--work", default="/tmp/tritonscope-ground-truth", help="each kernel's files, before packing")
    parser.add_argument("--budget", type=float, default=510, help="seconds for the whole run (default 510)")
    parser.add_argument("--timeout", type=float, default=90, help="seconds one kernel's profile may take (90)")
    parser.add_argument("--min-time", type=float, default=25, help="no kernel is started with less left (25)")
    parser.add_argument("--only", nargs="*", help="these cases alone (by name)")
    parser.add_argument("--source-only", action="store_true", help="SourceCounters alone, no kernel-level sections")
    parser.add_argument("--dry-run", action="store_true", help="check the set and print the commands; no GPU")
    parser.add_argument("--launch", help=argparse.SUPPRESS)  # the program ncu runs (JSON spec)
    args = parser.parse_args(argv)
    if args.launch:
        return launch(json.loads(args.launch))
    return dry_run() if args.dry_run else run(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
