"""Hostile cases of round 3's features and round 2's environments (issue 43, tests/fault_suite.py):
an empty --target, a garbage TRITONSCOPE_CLUSTER, a Gluon layout for another warp size, --from-run
on a program that reads standard input or launches from a thread, SIGTERM while `passes` compiles,
and a release environment whose Triton is broken or whose install was killed."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fault_suite import INT, TERM, Env, Row, Run, check_row, marked_processes, ptxas_running, run, user_files

_FAKE = "3.5.1"  # a release environment made by hand here: no download


def release_env(env: Env, package: bool = True, library: bytes | None = b"") -> Path:
    """envs/triton-3.5.1 as pip leaves it (a venv, Triton's dist-info), with its triton package
    (`package`) and its libtriton.so holding `library` (None: no library file)."""
    path = env.root / "xdg" / "tritonscope" / "envs" / f"triton-{_FAKE}"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    site = next(path.glob("lib/python*/site-packages"))
    (site / f"triton-{_FAKE}.dist-info").mkdir()
    (site / f"triton-{_FAKE}.dist-info" / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: triton\nVersion: {_FAKE}\n"
    )
    if package:
        (site / "triton" / "_C").mkdir(parents=True)
        (site / "triton" / "__init__.py").write_text("from triton._C.libtriton import ir  # noqa: F401\n")
        if library is not None:
            (site / "triton" / "_C" / "libtriton.so").write_bytes(library)
    return path


def env_without_triton(env: Env) -> None:
    release_env(env, package=False)


def env_with_empty_library(env: Env) -> None:
    release_env(env, library=b"")


FROM_RUN = "{kernels}/from_run"
BROKEN = (rf"triton-{_FAKE}", rf"envs remove {_FAKE}")

# fmt: off
ROWS = [
    # An empty target (an unset variable in a script) is refused, not taken for auto.
    Row("dump sample:double --target '' --stage ttir", id="43-empty-target", exit=2, says=(r"--target is empty",)),
    Row("dump sample:double -t ' ' --stage ttir", id="43-blank-target", exit=2, says=(r"--target is empty",)),
    Row("list sample:double -t ''", id="43-empty-target-of-list", exit=2, says=(r"--target is empty",)),
    # A cluster address from the environment is named as the variable it came from.
    Row("diff sample:double --target sm90 --vary BLOCK_SIZE=64,128 --stage ttir", id="43-cluster-variable-garbage",
        env={"TRITONSCOPE_CLUSTER": "garbage"}, exit=2,
        says=(r"TRITONSCOPE_CLUSTER=garbage", r"not a Ray cluster's address", r"HOST:PORT"),
        forbid=(r"--cluster garbage",)),
    Row("diff sample:double --target sm90 --vary BLOCK_SIZE=64,128 --stage ttir --cluster junk",
        id="43-cluster-flag-garbage", exit=2, says=(r"--cluster junk: not a Ray cluster's address",)),
    # A Gluon layout written for 32-thread warps, compiled for 64-lane CDNA: the reason is said.
    Row("dump {kernels}/gluon_32_lanes.py --target gfx942 --stage ttgir", id="43-gluon-32-lanes-on-gfx942", exit=1,
        says=(r"gfx942's 64 threads per warp", r"line 10: threads_per_warp \[4, 8\] is 32 threads",
              r"write the layouts for 64 threads per warp")),
    # --from-run of a program that asks for input: its line, one message. One that launches from a thread
    # of its own: the launch is found there, as in the main thread (it once stopped with torch's dispatcher
    # text in place of the launch line).
    Row(f"dump {FROM_RUN}/reads_stdin.py -k scale_kernel --from-run -t sm90 --stage ttir", id="43-from-run-reads-stdin",
        exit=2, timeout=240, says=(r"read standard input at \S*reads_stdin\.py:7", r"input\(", r"EOFError",
                                   r"--from-run < input\.txt")),
    Row(f"dump {FROM_RUN}/launches_in_thread.py -k scale_kernel --from-run -t sm90 --stage ttir",
        id="43-from-run-launches-in-a-thread", exit=0, timeout=240,
        says=(r"from the run: launch 1 of scale_kernel at \S*scale\.py:19, grid 16x1x1",),
        forbid=(r"registered at", r"fallthrough", r"(?i)backend fallback")),
    # SIGTERM or Ctrl-C while passes' worker runs ptxas: the worker and ptxas end with tritonscope.
    *[Row("passes sample:fused_attention --target sm90", id=f"43-passes-{name}-while-ptxas-runs",
          env={"TRITON_CACHE_DIR": "{kc}", "XDG_CACHE_HOME": "{kc}/xdg"}, signal=sig, ready=ptxas_running, timeout=180)
      for name, sig in (("sigterm", TERM), ("sigint", INT))],
    # A release environment whose Triton is gone or emptied: exit 2 naming it and how to repair it.
    Row(f"dump sample:double --target sm90 --stage ttir --triton {_FAKE}", id="43-env-without-triton-package", exit=2,
        setup=(env_without_triton,), says=(*BROKEN, r"triton package is missing")),
    Row(f"dump sample:double --target sm90 --stage ttir --triton {_FAKE}", id="43-env-with-empty-libtriton", exit=2,
        setup=(env_with_empty_library,), says=(*BROKEN, r"libtriton\.so is empty")),
    Row(f"diff sample:double --target sm90 --stage ttir --vary triton={_FAKE},3.6.0", id="43-vary-over-a-broken-env",
        exit=2, setup=(env_with_empty_library,), says=BROKEN),
]
# fmt: on


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_fault(row: Row, warm, tmp_path):
    check_row(row, warm, tmp_path)


def test_a_killed_install_s_staging_folder_goes_with_the_next_look_at_the_environments(warm, tmp_path):
    """SIGKILL during a first install leaves its staging folder (a few hundred MB with a real Triton).
    The next run that looks at the environments removes it, even when a live process has the id in
    its name (a fresh container's next run may): no install holds the environments' lock."""
    env = Env(tmp_path, "")
    user_files(tmp_path, warm[2])
    envs = tmp_path / "xdg" / "tritonscope" / "envs"
    killed = envs / f".triton-{_FAKE}.new.{os.getpid()}"  # this test's id: alive, as a reused one would be
    (killed / "lib" / "site-packages" / "triton").mkdir(parents=True)
    (killed / "lib" / "site-packages" / "triton" / "big.so").write_bytes(b"\0" * 4096)
    user_named = envs / ".triton-notes"  # not named as an install's staging folder: kept
    user_named.write_text("mine\n")
    result, survivors = run(env, Run("envs list"))
    assert result.code == 0 and not survivors, result.err
    assert not killed.exists(), "the killed install's staging folder is still there"
    assert user_named.read_text() == "mine\n"


def test_sigterm_to_passes_while_its_worker_starts_leaves_no_process(warm, tmp_path):
    """The worker's parent id is checked as it starts: one whose tritonscope died before it asked the
    kernel to end it with its parent ends at once, whatever process adopted it."""
    env = Env(tmp_path, "")
    user_files(tmp_path, warm[2])

    def worker_starting(env: Env, child: subprocess.Popen, marker: str) -> bool:
        for pid in marked_processes(marker):
            try:
                if b"tritonscope.isolate" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return True
            except OSError:
                pass
        return False

    spec = Run("passes sample:matmul --target sm90", signal=signal.SIGTERM, ready=worker_starting, timeout=120)
    with _subreaper():  # orphans come here, not to pid 1: as under a container's init or a supervisor
        result, survivors = run(env, spec)
    assert result.code in (-signal.SIGTERM, 128 + signal.SIGTERM), (result.code, result.err[-500:])
    assert not survivors, f"{len(survivors)} process(es) of the run left: {result.err[-300:]}"


@contextlib.contextmanager
def _subreaper():
    """This process adopts the orphans of its descendants for the block (PR_SET_CHILD_SUBREAPER); the
    adopted ones that ended are reaped after it."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(36, 1, 0, 0, 0)
    try:
        yield
    finally:
        libc.prctl(36, 0, 0, 0, 0)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
