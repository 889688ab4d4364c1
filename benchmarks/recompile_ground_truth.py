"""Issue 54's ground truth: what a GPU compiles after a server's warmup, and why, seen by Triton's
and torch.compile's own hooks (no tritonscope), and the same program captured by `tritonscope
trace` on the GPU, for the `recompiles` command to be tested against.

On the GPU machine, from the repository's root (tritonscope's dependencies importable):

    PYTHONUNBUFFERED=1 python3 benchmarks/recompile_ground_truth.py --out $OUT [--budget 300]

runs tests/programs/serve_after_warmup.py twice at once, each with cold caches:

1. in a child running this script with --run (below): OUT/recompiles_truth.json;
2. under `python -m tritonscope trace --launches 1000`: the capture folder, packed (its LLVM IR
   left out) as OUT/server_capture.tar.gz.

Each ends by --budget; a run cut short keeps what it wrote. Then a table: per kernel, compiles in
the warmup and after it, and torch.compile's recompiles after it with the guard that failed.

One hooked run of any program (what 1 runs):

    python3 benchmarks/recompile_ground_truth.py --run FILE.json -- PROGRAM.py [ARGS...]

runs PROGRAM in this process (as `python PROGRAM.py ARGS`; the hooks import Triton first, so a
program that would set TRITON_INTERPRET itself needs it set before) and writes FILE.json, again
after each compile: every compile of a @triton.jit function (its specialization: signature, constants, the
attributes that say divisible by 16, and the launch's arguments that made it, the program's line
that launched it, whether the autotuner was benchmarking, its compile seconds), every
triton.compile (Inductor's too: the child runs Inductor with one compile thread, so that its
compiles happen in this process), torch.compile's compile events and each recompile's guard
failures (TORCH_LOGS=recompiles, read from its logger). Each is tagged with the phase: "serving"
once the program has set SERVE_PHASE=serving (--phase-variable), else "warmup"; and with the
last line the program printed before it (the server prints each request's sizes after it).

Here, without a GPU, the hooked run works under the simulated GPU:

    tritonscope trace --target sm90 -o DIR -- python benchmarks/recompile_ground_truth.py \\
        --run truth.json -- tests/programs/serve_after_warmup.py --requests 10
"""

from __future__ import annotations

import argparse
import io
import json
import os
import runpy
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "tests" / "programs" / "serve_after_warmup.py"
TRUTH_FILE = "recompiles_truth.json"
CAPTURE_FILE = "server_capture.tar.gz"
CAPTURE_LIMIT = 15 * 2**20  # bytes: a file that comes back from the GPU machine holds 16 MiB at most
SKIPPED_SUFFIXES = (".llir",)  # large, and rebuilt from the TTGIR where needed
AUTOTUNER_FILE = os.path.join("triton", "runtime", "autotuner.py")  # in the stack: the autotuner is benchmarking


class Lines(io.TextIOBase):
    """The program's stdout, passed through, with every line it printed kept."""

    def __init__(self, stream):
        self.stream, self.partial, self.lines = stream, "", []

    def write(self, text: str) -> int:
        self.stream.write(text)
        parts = (self.partial + text).split("\n")
        self.partial = parts.pop()
        self.lines.extend(parts)
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name):  # fileno, encoding, isatty...: the stream's own
        return getattr(self.stream, name)


class Recorder:
    """What the hooks heard, written whole to one JSON file after each event."""

    def __init__(self, out: Path, program: Path, argv: list[str], phase_variable: str):
        self.out, self.phase_variable, self.started = out, phase_variable, time.monotonic()
        self.lock = threading.RLock()
        self.stdout = Lines(sys.stdout)
        self.launching = threading.local()  # the JIT launch under way: (function, args, kwargs)
        self.compile_started: dict[tuple[str, str], float] = {}
        self.doc = {"program": str(program), "argv": argv, "phase_variable": phase_variable, "status": "running"}
        self.doc.update(jit_compiles=[], compiles=[], dynamo=[], recompiles=[], output=self.stdout.lines)

    def context(self) -> dict:
        return {
            "phase": "serving" if os.environ.get(self.phase_variable) == "serving" else "warmup",
            "time_s": round(time.monotonic() - self.started, 4),
            "after_line": self.stdout.lines[-1] if self.stdout.lines else None,
        }

    def add(self, kind: str, record: dict) -> None:
        with self.lock:
            record = {"order": sum(len(self.doc[k]) for k in ("jit_compiles", "compiles", "recompiles")), **record}
            self.doc[kind].append({**record, **self.context()})
            self.write()

    def write(self) -> None:
        with self.lock:
            partial = self.out.with_name(self.out.name + ".partial")
            partial.write_text(json.dumps(self.doc, indent=1, default=repr))
            partial.replace(self.out)


# ---------------------------------------------------------------- the hooks


def describe(value) -> object:
    """A launch argument as plain data, with what Triton specializes on."""
    if hasattr(value, "data_ptr") and hasattr(value, "dtype"):
        return {
            "tensor": str(value.dtype).removeprefix("torch."),
            "shape": list(value.shape),
            "stride": list(value.stride()),
            "aligned_16": value.data_ptr() % 16 == 0,
        }
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return {"int": value, "divisible_by_16": value % 16 == 0, "equal_to_1": value == 1}
    if isinstance(value, float):
        return {"float": value}
    return repr(value)


def program_line(program: Path) -> str | None:
    """The program's own line that led to the compile (its innermost frame in the stack)."""
    for frame in reversed(traceback.extract_stack()):
        if Path(frame.filename).resolve() == program:
            return f"{program.name}:{frame.lineno}"
    return None


def by_name(paths: dict, names: list[str]) -> dict:
    """{(3,): value} -> {"n_elements": value}: Triton's argument paths spelled as parameter names."""
    found = {}
    for path, value in paths.items():
        path = path if isinstance(path, tuple) else (path,)
        key = names[path[0]] if path and isinstance(path[0], int) and path[0] < len(names) else str(path)
        found[key if len(path) == 1 else f"{key}{list(path[1:])}"] = value
    return found


def install_triton_hooks(recorder: Recorder, program: Path) -> None:
    from triton import knobs
    from triton.runtime.jit import JITFunction

    original_run = JITFunction.run

    def run(self, *args, grid, warmup, **kwargs):
        previous = getattr(recorder.launching, "call", None)
        recorder.launching.call = (self, args, kwargs)
        try:
            return original_run(self, *args, grid=grid, warmup=warmup, **kwargs)
        finally:
            recorder.launching.call = previous

    JITFunction.run = run
    earlier_cache_hook, earlier_post_hook = knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook

    def before_compile(*, key, fn, **rest):
        recorder.compile_started[(fn.name, str(key))] = time.monotonic()
        return earlier_cache_hook(key=key, fn=fn, **rest) if earlier_cache_hook else None

    def after_compile(*, key, fn, compile, **rest):
        recorder.add("jit_compiles", jit_record(recorder, program, key, fn, compile))
        return earlier_post_hook(key=key, fn=fn, compile=compile, **rest) if earlier_post_hook else None

    knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook = before_compile, after_compile
    install_listener(recorder, knobs.compilation)


def jit_record(recorder: Recorder, program: Path, key, fn, compile: dict) -> dict:
    """One compile of a @triton.jit function: its specialization and the launch that made it."""
    began = recorder.compile_started.pop((fn.name, str(key)), None)
    jit = fn.jit_function
    names = list(jit.arg_names)
    launch = getattr(recorder.launching, "call", None)
    arguments, launch_options = {}, {}
    if launch and launch[0] is jit:
        _, args, kwargs = launch
        given = {**dict(zip(names, args, strict=False)), **kwargs}
        arguments = {name: describe(value) for name, value in given.items() if name in names}
        launch_options = {name: value for name, value in given.items() if name not in names}  # num_warps...
    compiled = jit.device_caches[compile["device"]][0].get(key)
    return {
        "kernel": fn.name,
        "hash": getattr(compiled, "hash", None),
        "compile_s": None if began is None else round(time.monotonic() - began, 4),
        "program_line": program_line(program),
        "autotuning": any(f.filename.endswith(AUTOTUNER_FILE) for f in traceback.extract_stack()),
        "signature": dict(compile["signature"]),
        "constants": by_name(compile["constants"], names),
        "attrs": by_name(compile["configs"][0], names) if compile["configs"] else {},
        "options": {k: compile[k] for k in ("num_warps", "num_stages", "num_ctas")},
        "arguments": arguments,
        "launch_options": launch_options,
    }


def install_listener(recorder: Recorder, compilation) -> None:
    """Every triton.compile in this process (the JIT's and Inductor's), after any listener before it."""
    earlier = compilation.listener

    def heard(*, src, metadata, metadata_group, times, cache_hit):
        fn_names = list(getattr(getattr(src, "fn", None), "arg_names", []) or [])
        recorder.add(
            "compiles",
            {
                "name": getattr(src, "name", None),
                "cache_hit": cache_hit,
                "hash": metadata.get("hash"),
                "compile_s": _seconds(times),
                "signature": dict(getattr(src, "signature", {}) or {}),
                "constants": by_name(getattr(src, "constants", {}) or {}, fn_names),
                "attrs": by_name(getattr(src, "attrs", {}) or {}, fn_names),
                "options": {k: metadata.get(k) for k in ("num_warps", "num_stages", "num_ctas")},
            },
        )
        if earlier:
            earlier(src=src, metadata=metadata, metadata_group=metadata_group, times=times, cache_hit=cache_hit)

    compilation.listener = heard


def _seconds(times) -> float | None:
    """Triton's CompileTimes (microseconds) as seconds; None where it has none (a cache hit)."""
    try:
        return round(times.total / 1e6, 4)
    except (AttributeError, TypeError):
        return None


def install_torch_hooks(recorder: Recorder) -> None:
    """torch.compile's compile events and each recompile's reasons (the 'recompiles' log)."""
    try:
        import logging

        import torch
    except ImportError:
        return
    torch._logging.set_logs(recompiles=True)

    class Heard(logging.Handler):
        def emit(self, record):
            message = record.getMessage()
            failures = [line.strip()[2:] for line in message.splitlines() if line.strip().startswith("- ")]
            recorder.add("recompiles", {"message": message, "guard_failures": failures})

    logging.getLogger("torch._dynamo.guards.__recompiles").addHandler(Heard())
    handler = getattr(getattr(torch._dynamo, "callback", None), "callback_handler", None)
    if handler is None:
        return
    for event, register in (("start", handler.register_start_callback), ("end", handler.register_end_callback)):
        register(lambda args, event=event: recorder.add("dynamo", {"event": event, **_callback_fields(args)}))


def _callback_fields(args) -> dict:
    trigger = getattr(args, "callback_trigger", None)
    return {"compile_id": str(getattr(args, "compile_id", "")), "trigger": getattr(trigger, "name", str(trigger))}


def run_hooked(out: Path, program: Path, argv: list[str], phase_variable: str) -> int:
    """Runs PROGRAM here, as `python PROGRAM ARGV`, under the hooks; writes OUT whatever happens."""
    program = program.resolve()
    recorder = Recorder(out, program, argv, phase_variable)
    install_triton_hooks(recorder, program)
    install_torch_hooks(recorder)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.argv, sys.path[0], sys.stdout = [str(program), *argv], str(program.parent), recorder.stdout
    code = 0
    try:
        runpy.run_path(str(program), run_name="__main__")
        recorder.doc["status"] = "ok"
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
        recorder.doc["status"] = "ok" if code == 0 else f"exit {code}"
    except BaseException as error:  # noqa: BLE001 - the program's failure is recorded, then reported
        recorder.doc["status"] = f"error: {type(error).__name__}: {error}"
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout = recorder.stdout.stream
        recorder.doc["wall_s"] = round(time.monotonic() - recorder.started, 2)
        recorder.write()
    return code


# ---------------------------------------------------------------- on the GPU: both runs


def collect(out: Path, budget: float, program_args: list[str], target: str | None) -> None:
    """The hooked run and the traced run at once, each with cold caches; then the table. With a
    TARGET (no GPU), both run on the simulated GPU (the hooked one under `trace --target` too)."""
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="recompiles-"))
    program_args = [str(PROGRAM), *program_args]
    hooked = [sys.executable, str(Path(__file__).resolve()), "--run", str(out / TRUTH_FILE), "--", *program_args]
    simulated = ["--target", target] if target else []
    if target:
        tracing = [sys.executable, "-m", "tritonscope", "trace", *simulated, "-o", str(work / "simulated"), "--"]
        hooked = [*tracing, *hooked]
    capture = work / "capture"
    traced = [sys.executable, "-m", "tritonscope", "trace", *simulated, "--launches", "1000", "-o", str(capture)]
    traced += ["--", sys.executable, *program_args]
    runs = {
        "hooked": _start(hooked, _cold(work / "hooked", TORCHINDUCTOR_COMPILE_THREADS="1"), out / "hooked.log"),
        "traced": _start(traced, _cold(work / "traced"), out / "traced.log"),
    }
    deadline = time.monotonic() + budget
    signal.signal(signal.SIGTERM, lambda *_: _end_now(runs.values()))
    codes = {name: _wait(process, deadline) for name, process in runs.items()}
    packed = pack_capture(capture, out / CAPTURE_FILE)
    shutil.rmtree(work, ignore_errors=True)
    print(f"exit codes: {codes}; capture: {packed}", flush=True)
    print(table(out / TRUTH_FILE), flush=True)


def _cold(folder: Path, **more: str) -> dict[str, str]:
    """The environment of one run: fresh Triton and Inductor caches, the repository on the path."""
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {
        **os.environ,
        "TRITON_CACHE_DIR": str(folder / "triton"),
        "TORCHINDUCTOR_CACHE_DIR": str(folder / "inductor"),
        "PYTHONPATH": os.pathsep.join(paths),
        "PYTHONUNBUFFERED": "1",
        **more,
    }


def _start(command: list[str], env: dict, log: Path) -> subprocess.Popen:
    print(f"start: {' '.join(command)}", flush=True)
    handle = log.open("w")
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)


def _wait(process: subprocess.Popen, deadline: float) -> int | str:
    """Its exit code; past the deadline it is ended (SIGTERM, then SIGKILL) with all it started."""
    try:
        return process.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        for sig, grace in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(process.pid, sig)
                process.wait(timeout=grace)
                break
            except (ProcessLookupError, subprocess.TimeoutExpired):
                continue
        return "timed out"


def _end_now(processes) -> None:
    """Asked to end: the runs are ended now (each in its own session); the capture is then packed."""
    for process in processes:
        _wait(process, deadline=0.0)


def pack_capture(capture: Path, archive: Path) -> str:
    """The capture folder as a .tar.gz under CAPTURE_LIMIT: without its LLVM IR, and where still too
    large, with only the compile records, launches and PTX; what was left out is said."""
    if not capture.is_dir():
        return "no capture was written"
    files = sorted(p for p in capture.rglob("*") if p.is_file() and p.suffix not in SKIPPED_SUFFIXES)
    note = "LLVM IR left out"
    _tar(capture, files, archive)
    if archive.stat().st_size > CAPTURE_LIMIT:
        files = [p for p in files if p.parent == capture or p.suffix in (".ptx", ".json")]
        _tar(capture, files, archive)
        note = "only the logs, PTX and metadata kept (the whole was over 15 MiB)"
    return f"{archive.name}: {len(files)} files, {archive.stat().st_size / 2**20:.1f} MiB, {note}"


def _tar(root: Path, files: list[Path], archive: Path) -> None:
    partial = archive.with_name(archive.name + ".partial")
    with tarfile.open(partial, "w:gz") as tar:
        for path in files:
            tar.add(path, arcname=str(Path("capture") / path.relative_to(root)))
    partial.replace(archive)


def table(truth: Path) -> str:
    """Per kernel: compiles in the warmup and after it; then torch.compile's recompiles after it."""
    if not truth.exists():
        return f"{truth.name}: not written"
    doc = json.loads(truth.read_text())
    counts: dict[str, list[int]] = {}
    for record in doc["compiles"]:
        if not record["cache_hit"]:
            counts.setdefault(record["name"], [0, 0])[record["phase"] == "serving"] += 1
    rows = [f"status {doc['status']}, {doc.get('wall_s')} s; Triton compiles (cache misses) per kernel:"]
    rows += [f"  {name:<44} warmup {w:>3}  after {a:>3}" for name, (w, a) in sorted(counts.items())]
    late = [r for r in doc["recompiles"] if r["phase"] == "serving"]
    rows.append(f"torch.compile recompiles: {len(doc['recompiles']) - len(late)} in the warmup, {len(late)} after")
    rows += [f"  after '{r['after_line']}': {'; '.join(r['guard_failures'])[:150]}" for r in late]
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="folder of the results (default: $OUT, else ./recompiles-truth)")
    parser.add_argument("--budget", type=float, default=300, help="seconds both runs may take (default 300)")
    parser.add_argument("--requests", type=int, default=200, help="the server's requests after warmup (default 200)")
    parser.add_argument("--max-batch", type=int, default=32, help="the server's largest batch (default 32)")
    parser.add_argument("--max-seq", type=int, default=512, help="the server's longest sequence (default 512)")
    parser.add_argument("--target", help="no GPU: run both on this simulated GPU (trace --target), to check")
    parser.add_argument("--run", metavar="FILE.json", help="run the program after -- here, under the hooks")
    parser.add_argument("--phase-variable", default="SERVE_PHASE", help="set to 'serving' after the warmup")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="with --run: -- PROGRAM.py [ARGS...]")
    args = parser.parse_args()
    if args.run:
        command = args.command[1:] if args.command[:1] == ["--"] else args.command
        if not command:
            parser.error("--run needs the program after --")
        sys.exit(run_hooked(Path(args.run).resolve(), Path(command[0]), command[1:], args.phase_variable))
    program_args = ["--requests", str(args.requests), "--max-batch", str(args.max_batch)]
    program_args += ["--max-seq", str(args.max_seq)]
    out = Path(args.out or os.environ.get("OUT") or "recompiles-truth").resolve()
    collect(out, args.budget, program_args, args.target)


if __name__ == "__main__":
    main()
