"""Runs the tests on the other supported Triton releases, each in a fresh virtual environment:
the suite on the newest (3.9.0), on every core, but for what runs on the pinned release only, to
keep CI within its time: what holds tritonscope's own code and not Triton's (the explorer's
screens, the agent server's protocol and the status line, which drive the same app functions the
rest of the suite holds on every release; the fault suites that send signals or drive a terminal,
which hold tritonscope's own process handling: the `serial` tests; the cluster, the packaging, the
layering and the browser views: see PINNED_ONLY), what is the pinned release's by
construction (the corpus of real programs, whose H100 and H200 summaries are 3.6.0's, and the
host-value programs that corpus runs, models of transformers, which only the README's run
installs; the tour's text and docs/agents.md's figures, built from 3.6.0's runs), the simulated
GPU's answers to torch (torch's own, the same under every Triton) and one sweep
(PINNED_ONLY_TESTS). The liger-kernel corpus runs on both. The smoke test (tests/test_smoke.py),
which the whole suite covers, runs instead on 3.5.1, 3.7.1 and 3.8.0, side by side (each one's
output printed when it ends). The pinned release (3.6.0, the GPU machine's) is the README's own
`python -m pytest`.

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
PINNED_ONLY = (
    *("test_corpus_h100.py", "test_corpus_host_values.py", "test_host_value_programs.py"),
    *("test_simulated_answers.py", "test_tour.py"),
    *("test_explorer.py", "test_explorer_snapshots.py", "test_explorer_terminal.py"),
    *("test_agent.py", "test_agent_pages.py", "test_status_line.py"),
    # tritonscope's own machinery, which runs Triton only as a child it starts or a file it imports:
    # the Ray cluster and the executor, the installed package, namespace-package imports, the CI
    # recipe, the import layering, the HTML and notebook views in a browser, and the environments of
    # other releases (on the newest's run they would make the pinned one's, which the pinned run makes)
    *("test_cluster.py", "test_executor.py", "test_installed.py", "test_namespace_packages.py"),
    *("test_ci_recipe.py", "test_architecture.py", "test_report_browser.py", "test_notebook_browser.py"),
    *("test_other_releases.py", "test_bench_releases.py"),
)
# A sweep whose every case the newest release's run holds in smaller tests of the same code (a
# sample ranked on each kind of target, liger's dyt over its 18 configs), run whole on the pinned
# release only: about a twentieth of that run's time.
PINNED_ONLY_TESTS = ("tests/test_fit_rank.py::test_every_sample_ranks_on_every_default_target",)
TORCH = "torch==2.13.0"  # the CPU build; an unpinned torch pulls gigabytes of CUDA
LIGER = "liger-kernel==0.8.5"  # --no-deps: it asks for a torch of its own choosing


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
        steps.append([python, "-m", "pip", "install", "-q", "--no-deps", LIGER])
        ignored = [f"--ignore=tests/{name}" for name in (*PINNED_ONLY, "test_smoke.py")]
        ignored += [f"--deselect={test}" for test in PINNED_ONLY_TESTS]
        steps.append([*pytest, "-n", "auto", "--dist", "loadfile", "-m", "not serial", *ignored])
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
