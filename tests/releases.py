"""Runs the tests on the other supported Triton releases, each in a fresh virtual environment.

On the newest (3.9.0), on every core, the tests of what a Triton release changes
(RELEASE_FACING): its compiler's entry points and options, the text of each stage and the
parsers that read it, its targets and their limits, how its launcher specializes arguments, the
hooks a traced program's compiles and launches come through, its interpreter (which runs a
kernel's reads on the host), its JIT objects (the Python API's input), and real library kernels
compiled whole. The rest of the suite holds tritonscope's own code on what those return (the
same parsed stages, compiles and captures) and runs on the pinned release only: the views and
front ends, fit and its ranking, the fault suites, the corpus of real programs (whose H100 and
H200 summaries are 3.6.0's by construction), the cluster, the packaging. The whole suite took
36 minutes on the newest, on CI's 2-core machine; this part took 7 (2026-11-29).

The smoke test (tests/test_smoke.py: every command once) runs on 3.9.0 with that part, and alone
on 3.5.1, 3.7.1 and 3.8.0, side by side (each one's output printed when it ends). The pinned
release (3.6.0, the GPU machine's) is the README's own `python -m pytest`.

    python tests/releases.py            # all of them
    python tests/releases.py 3.8.0      # one

Exits non-zero when any run fails, and says which.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FULL = ("3.9.0",)
SMOKE = ("3.5.1", "3.7.1", "3.8.0")
RELEASE_FACING = (
    # the compiler's output, parsed: every stage's text, line locations, layouts, pass dumps, SASS
    *("test_parser_amdgcn.py", "test_parser_asm_loc.py", "test_parser_cuobjdump.py", "test_parser_layouts.py"),
    *("test_parser_llvm_debug.py", "test_parser_mlir_locations.py", "test_parser_normalize.py"),
    *("test_parser_pass_dump.py", "test_parser_sass_lines.py", "test_linemap.py", "test_cubins.py"),
    *("test_layout.py", "test_shared_layouts.py"),
    # compiling: the entry points, options and targets, specialization, the pass pipeline, Gluon
    *("test_compile.py", "test_specialize.py", "test_targets.py", "test_samples.py", "test_early_stages.py"),
    *("test_passes.py", "test_source.py", "test_load.py", "test_gluon.py"),
    # real library kernels compiled whole, and the JIT objects the Python API takes
    *("test_library_kernels.py", "test_api.py"),
    # every command once; the hooks a traced program comes through; the interpreter's reads
    *("test_smoke.py", "test_trace_target.py", "test_simulated_values.py"),
)

TORCH = "torch==2.13.0"  # the CPU build; an unpinned torch pulls gigabytes of CUDA


def run(release: str, folder: Path, package: str = str(ROOT)) -> bool:
    venv = folder / f"triton-{release}"
    python = venv / "bin" / "python"
    full = release in FULL
    # the smoke test needs pytest alone of the test extra (the rest is for the screens, reports, agents)
    wanted = [f"{package}[test]", TORCH] if full else [package, "pytest>=8"]
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [python, "-m", "pip", "install", "-q", "--upgrade", "pip"],
        [python, "-m", "pip", "install", "-q", f"triton=={release}", *wanted],
    ]
    pytest = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    if full:  # on every core, a file's tests in one worker (its fixtures built once)
        files = [f"tests/{name}" for name in RELEASE_FACING]
        steps.append([*pytest, "-n", "auto", "--dist", "loadfile", "-m", "not serial", *files])
    else:
        steps.append([*pytest, "tests/test_smoke.py"])  # collects no file that needs torch
    started = time.monotonic()
    said = []  # a smoke run's output, printed whole when it ends (they run side by side)
    for step in steps:
        said.append(f"+ [{release}] {' '.join(map(str, step))}")
        if full:
            print(said.pop(), flush=True)
        done = subprocess.run(step, cwd=ROOT, **({} if full else {"capture_output": True, "text": True}))
        said += [] if full else [done.stdout, done.stderr]
        if done.returncode != 0:
            _print([*said, f"Triton {release}: FAILED at the step above"])
            return False
    _print([*said, f"Triton {release}: passed in {time.monotonic() - started:.0f} s"])
    return True


_PRINTING = threading.Lock()


def _print(lines: list[str]) -> None:
    with _PRINTING:
        print("\n".join(line.rstrip("\n") for line in lines if line), flush=True)


def _wheel(folder: Path) -> str:
    """tritonscope built once, as a wheel in FOLDER: its path."""
    out = folder / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)], check=True)
    return str(next(out.glob("tritonscope-*.whl")))


def main() -> int:
    releases = sys.argv[1:] or [*FULL, *SMOKE]
    with tempfile.TemporaryDirectory(prefix="tritonscope-releases-") as folder:
        passed = {r: run(r, Path(folder)) for r in releases if r in FULL}
        smoke = [r for r in releases if r not in FULL]
        # the smoke runs are mostly installing: side by side, from one wheel built first (builds of
        # one source folder at once collide in its build/ and egg-info). Run once beside the full run,
        # on 2 cores, each took twice its time and the whole was not shorter: they stay after it.
        wheel = _wheel(Path(folder)) if smoke else ""
        with ThreadPoolExecutor(max(len(smoke), 1)) as pool:
            passed |= dict(zip(smoke, pool.map(lambda r: run(r, Path(folder), wheel), smoke), strict=True))
    failed = [r for r in releases if not passed[r]]
    if failed:
        print(f"failed on Triton {', '.join(failed)}")
        return 1
    print(f"passed on Triton {', '.join(releases)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
