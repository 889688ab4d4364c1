"""Traces every corpus program on a real GPU, twice, each time with cold caches, and writes one
JSON summary of what each run compiled and launched: the ground truth `trace --target` is held to.

Run on the GPU machine from the repository's root (tritonscope need not be installed; the wheels
under .carry/wheels, when there, are unpacked into a private folder on the programs' path first:
tritonscope's own dependencies, and timm for vit_timm.py; all pure Python):

    PYTHONUNBUFFERED=1 python3 tests/programs/capture_h100.py [--out DIR] [--set SET] [PROGRAM ...]

--set host-values traces the programs of issue 51 (values the program reads on the host:
generate(), an MoE router's loss, data-dependent shapes, GradScaler; HOST_VALUE_PROGRAMS) instead
of the corpus held in tests/programs/h100/summary.json (PROGRAMS).

It prints a line as each trace starts and ends, then a table: program, compiles in each run, how
many compiles are identical between the runs (name, signature, constants, attributes, options and
PTX with its DWARF sections, file table and assertFile_N paths set aside), wall seconds. Writes
OUT/corpus_h100.json (OUT: --out, else $OUT, else ./corpus-h100), rewritten after each trace so
that a call cut short keeps what finished, and OUT/texts.tar.gz with the texts the summary names
by digest: each normalized PTX (ptx/DIGEST.ptx) and each kernel's source (source/DIGEST.py).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))
from capture_fidelity import normal_ptx  # noqa: E402

# Every program of the corpus, longest first so that a pool of workers ends together.
PROGRAMS = (
    "llama_train",
    "mixtral_moe",
    "flex_attention",
    "max_autotune_matmul",
    "vit_timm",
    "bert_encoder",
    "resnet_channels_last",
    "unaligned_matmul",
    "compiled_optimizer",
    "dynamic_shapes",
    "user_autotune",
)
# Issue 51's programs, whose values are read on the host, longest first; traced apart (--set
# host-values) until their H100 summary joins the corpus's.
HOST_VALUE_PROGRAMS = (
    "seq2seq_dropout_train",
    "moe_router_train",
    "generate_dynamic",
    "tied_embeddings_train",
    "amp_scaler_train",
    "generate_static",
    "mask_indexing",
)
# Programs of tests/programs/ that other scripts trace: issue 54's server
# (benchmarks/recompile_ground_truth.py).
OTHER_PROGRAMS = ("serve_after_warmup",)
SETS = {"corpus": PROGRAMS, "host-values": HOST_VALUE_PROGRAMS}
VERSIONS_CODE = """
import json, platform, torch, triton
found = {"python": platform.python_version(), "torch": torch.__version__, "triton": triton.__version__,
         "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
for name in ("transformers", "torchvision", "timm"):
    try:
        found[name] = __import__(name).__version__
    except Exception as error:
        found[name] = f"missing: {error}"
print(json.dumps(found))
"""
TAIL = 3000  # characters of each trace's output kept in the summary


def main() -> None:
    started = time.monotonic()
    args = _arguments()
    out = Path(args.out or os.environ.get("OUT") or "corpus-h100").resolve()
    work = Path(tempfile.mkdtemp(prefix="corpus-h100-"))
    env = _environment(work)
    results = Results(out, {"versions": _versions(env), "budget_s": args.budget, "limit_s": args.limit, "runs": {}})
    print("versions:", json.dumps(results.summary["versions"]), flush=True)
    jobs = [(program, run) for run in range(1, args.runs + 1) for program in (args.programs or SETS[args.set])]

    def one(job: tuple[str, int]) -> None:
        program, run = job
        results.add(program, run, *_trace(program, run, work, env, args, started + args.budget))

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the traces are ended below
    pool = concurrent.futures.ThreadPoolExecutor(args.jobs)
    try:
        list(pool.map(one, jobs))
    finally:  # each trace runs in a session of its own: none may outlive this script
        _STOPPING.set()
        pool.shutdown(wait=False, cancel_futures=True)
        for process in list(_LIVE):
            _kill(process)
    if args.keep:
        print(f"captures kept in {work}", flush=True)
    else:
        shutil.rmtree(work, ignore_errors=True)
    print(_table(results.summary["runs"], time.monotonic() - started), flush=True)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("programs", nargs="*", help="programs to trace (default: every program of --set)")
    parser.add_argument("--set", choices=SETS, default="corpus", help="the programs traced (default: corpus)")
    parser.add_argument("--out", help="folder of the summary (default: $OUT, else ./corpus-h100)")
    parser.add_argument("--jobs", type=int, default=4, help="traces run at once (default 4)")
    parser.add_argument("--limit", type=float, default=240, help="seconds one trace may run (default 240)")
    parser.add_argument(
        "--budget", type=float, default=480, help="seconds for everything (default 480): every trace ends by then"
    )
    parser.add_argument("--keep", action="store_true", help="keep the captures (their folder is printed)")
    parser.add_argument("--runs", type=int, default=2, help="traces of each program, each with cold caches (default 2)")
    parser.add_argument("--target", help="trace against this simulated GPU instead (trace --target), to compare")
    return parser.parse_args()


def _environment(work: Path) -> dict[str, str]:
    """The programs' environment: the repository (and the carried wheels, installed once) on the path."""
    paths = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    wheels = sorted((REPO / ".carry" / "wheels").glob("*.whl"))
    if wheels:  # pure-Python wheels, unpacked: the same as pip's install, with no pip needed there
        site = work / "site"
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(site)
        paths.append(str(site))
        print(f"unpacked {len(wheels)} carried wheel(s) into {site}: {', '.join(w.name for w in wheels)}", flush=True)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PYTHONUNBUFFERED": "1"}


def _versions(env: dict[str, str]) -> dict:
    result = subprocess.run([sys.executable, "-c", VERSIONS_CODE], env=env, capture_output=True, text=True)
    return json.loads(result.stdout) if result.returncode == 0 else {"error": result.stderr[-TAIL:]}


def _trace(program: str, run: int, work: Path, env: dict, args, deadline: float) -> tuple[dict, dict]:
    """Traces PROGRAM once with cold caches: (its summary, the texts it names by digest)."""
    left = deadline - time.monotonic()
    if left < 20:
        print(f"skip  {program} run {run}: out of time", flush=True)
        return {"status": "not run: out of time"}, {}
    capture, caches = work / f"run{run}" / program, work / f"caches{run}" / program
    caches.mkdir(parents=True)
    env = {**env, "TRITON_CACHE_DIR": str(caches / "triton"), "TORCHINDUCTOR_CACHE_DIR": str(caches / "inductor")}
    command = [sys.executable, "-m", "tritonscope", "trace", "--launches", "100", "-o", str(capture)]
    command += [*(["--target", args.target] if args.target else []), "--", sys.executable, str(HERE / f"{program}.py")]
    print(f"start {program} run {run}", flush=True)
    began = time.monotonic()
    code, output = _run(command, env, min(args.limit, left))
    wall = round(time.monotonic() - began, 1)
    record, texts = summarize(capture)
    record.update(exit_code=code, wall_s=wall, output_tail=output[-TAIL:])
    record["status"] = "timed out" if code is None else ("ok" if code == 0 else f"exit {code}")
    print(f"end   {program} run {run}: {record['status']}, {len(record['compiles'])} compiles, {wall} s", flush=True)
    return record, texts


_LIVE: set[subprocess.Popen] = set()  # the traces running now
_STOPPING = threading.Event()  # set when the script ends: no trace starts after


def _run(command: list[str], env: dict, timeout: float) -> tuple[int | None, str]:
    """(exit code, or None when it ran past TIMEOUT, was killed with all it started, or was not
    started because the script is ending; output)."""
    if _STOPPING.is_set():
        return None, "not started: the script was ending"
    process = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    _LIVE.add(process)
    try:
        output, _ = process.communicate(timeout=timeout)
        return process.returncode, output.decode(errors="replace")
    except subprocess.TimeoutExpired:
        _kill(process)
        output, _ = process.communicate()
        return None, output.decode(errors="replace")
    finally:  # what it left running too (nothing, as tritonscope ends its children)
        _kill(process)
        _LIVE.discard(process)


def _kill(process: subprocess.Popen) -> None:
    """Ends the trace and everything it started (its session's process group)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def summarize(capture: Path) -> tuple[dict, dict[str, str]]:
    """One capture folder as plain data: each compile and its launches; and the texts it names by
    digest ({"ptx/DIGEST.ptx": normalized PTX, "source/DIGEST.py": the kernel's source})."""
    launches = _launches(capture)
    compiles, texts = [], {}
    for line in _lines(capture / "kernels.jsonl"):
        record = json.loads(line)
        entry = {key: record.get(key) for key in ("name", "signature", "constants", "attrs")}
        entry.update(_compile_options(capture / "cache" / record["hash"], record["name"]))
        ptx_file = capture / "cache" / record["hash"] / f"{record['name']}.ptx"
        ptx = normal_ptx(ptx_file.read_text()) if ptx_file.exists() else None
        for key, text, suffix in (("ptx", ptx, "ptx"), ("source", record.get("source"), "py")):
            entry[key] = _digest(text) if text is not None else None
            if text is not None:
                texts[f"{key}/{entry[key]}.{suffix}"] = text
        entry["launches"] = launches.get(record["hash"], [])
        compiles.append(entry)
    stopped_record = capture / "stopped.json"
    stopped = json.loads(stopped_record.read_text()) if stopped_record.exists() else None
    return {"compiles": compiles, "stopped": stopped}, texts


def _lines(log: Path) -> list[str]:
    """The lines of a capture's log; none where the program ended before writing it."""
    return log.read_text().splitlines() if log.exists() else []


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _compile_options(folder: Path, name: str) -> dict:
    """What the compile's metadata says that changes the code: warps, stages, CTAs, registers cap."""
    try:
        meta = json.loads((folder / f"{name}.json").read_text())
    except (OSError, ValueError):
        return {"options": None}
    keys = ("num_warps", "num_stages", "num_ctas", "maxnreg", "shared", "arch", "triton_version")
    return {"options": {key: meta.get(key) for key in keys}}


def _launches(capture: Path) -> dict[str, list]:
    """Compile hash -> [[count, grid, [each argument: shape, stride, dtype / value / kind]], ...]."""
    log = capture / "launches.jsonl"
    found: dict[str, Counter] = {}
    for line in _lines(log):
        record = json.loads(line)
        args = json.dumps([_argument(a) for a in record["args"]])
        found.setdefault(record["hash"], Counter())[(json.dumps(record["grid"]), args)] += 1
    return {
        key: [[count, json.loads(grid), json.loads(args)] for (grid, args), count in sorted(counts.items())]
        for key, counts in found.items()
    }


def _argument(arg: dict):
    if arg.get("kind") == "tensor":
        return [arg["shape"], arg["stride"], arg["dtype"].removeprefix("torch."), arg.get("storage_offset", 0)]
    return arg["value"] if "value" in arg else arg.get("kind")


def compile_key(entry: dict) -> str:
    """What makes two compiles the same: name, specialization, options and PTX (not the launches,
    nor the source text, which is kept to match kernels across torch releases)."""
    return json.dumps({k: v for k, v in entry.items() if k not in ("launches", "source")}, sort_keys=True)


class Results:
    """The summary and the PTX texts so far, written whole after each trace (each file written
    beside its place, then renamed), so that a call cut short keeps what finished."""

    def __init__(self, out: Path, summary: dict):
        out.mkdir(parents=True, exist_ok=True)
        self.out, self.summary, self.texts = out, summary, {}
        self.lock = threading.Lock()

    def add(self, program: str, run: int, record: dict, texts: dict[str, str]) -> None:
        with self.lock:
            self.summary["runs"].setdefault(program, {})[str(run)] = record
            self.texts.update(texts)
            self._replace("corpus_h100.json", json.dumps(self.summary, indent=1, sort_keys=True).encode())
            self._replace("texts.tar.gz", self._archive())

    def _archive(self) -> bytes:
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for name, text in sorted(self.texts.items()):
                data = text.encode()
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
        return buffer.getvalue()

    def _replace(self, name: str, data: bytes) -> None:
        partial = self.out / f"{name}.partial"
        partial.write_bytes(data)
        partial.replace(self.out / name)


def _order(program: str) -> int:
    every = PROGRAMS + HOST_VALUE_PROGRAMS
    return every.index(program) if program in every else len(every)


def _table(runs: dict, total: float) -> str:
    rows = [f"{'program':<22} {'run1':>5} {'run2':>5} {'same':>5} {'wall1 s':>8} {'wall2 s':>8}  status"]
    for program, by_run in sorted(runs.items(), key=lambda item: _order(item[0])):
        first, second = by_run.get("1", {}), by_run.get("2", {})
        a = Counter(compile_key(e) for e in first.get("compiles", []))
        b = Counter(compile_key(e) for e in second.get("compiles", []))
        statuses = "/".join(str(r.get("status")) for r in (first, second))
        rows.append(
            f"{program:<22} {sum(a.values()):>5} {sum(b.values()):>5} {sum((a & b).values()):>5} "
            f"{first.get('wall_s', '-'):>8} {second.get('wall_s', '-'):>8}  {statuses}"
        )
    rows.append(f"total wall: {total:.0f} s")
    return "\n".join(rows)


if __name__ == "__main__":
    main()
