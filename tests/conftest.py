"""Shared fixtures. Every test compiles real kernels with the real Triton, on the CPU."""

from __future__ import annotations

import functools
import os
import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tritonscope.app.walk.prepare import compile_request
from tritonscope.cli import app
from tritonscope.cli.argtypes import assignments, check_dtype
from tritonscope.core.model import VariantRequest
from tritonscope.core.targets import local_target

KERNELS = Path(__file__).parent / "kernels"

# A test run started in the background of a script (`pytest ... &`) inherits SIGINT ignored, and so
# would every command a test starts: the tests that press Ctrl-C (a signal a terminal delivers to a
# command whose SIGINT is not ignored) would see nothing happen. Handled here, it is the default
# again in the commands started (exec resets a handled signal).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# A pip that reaches no package index: what a test's machine (or cluster node) has, it has of its
# own, and nothing is downloaded.
OFFLINE_PIP = {
    "PIP_CONFIG_FILE": os.devnull,
    "PIP_INDEX_URL": "http://127.0.0.1:9/simple",  # nothing listens there
    "PIP_FIND_LINKS": "",
    "PIP_EXTRA_INDEX_URL": "",
    "PIP_NO_CACHE_DIR": "1",
    "PIP_RETRIES": "0",
    "PIP_DEFAULT_TIMEOUT": "3",
}
# Samples whose Gluon layouts name 32 threads per warp: they compile for NVIDIA only, not wave64 AMD.
WARP32_SAMPLES = {"row_sum_gluon", "fused_attention_gluon"}  # Gluon written for NVIDIA (the attention: wgmma)


@pytest.fixture(autouse=True, scope="session")
def private_user_cache(tmp_path_factory):
    """tritonscope's user cache (Triton's remembered installation hash) in a temporary folder.
    pip keeps its own cache (the other Triton releases' environments are installed from it)."""
    home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    os.environ.setdefault("PIP_CACHE_DIR", str(Path(home) / "pip"))
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("user-cache"))


# Files whose tests send signals to tritonscope or drive a terminal, timed to what the command is doing:
# marked `serial` and run in one process after the parallel run (the README's test command), where no
# other test's compiles share the cores with them.
SERIAL_FILES = {
    *("test_faults_signals.py", "test_faults_output.py", "test_faults_hostile.py", "test_faults_cluster.py"),
    *("test_explorer_terminal.py", "test_status_line.py"),
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SERIAL_FILES:
            item.add_marker(pytest.mark.serial)
    if local_target() is not None:
        return
    skip = pytest.mark.skip(reason="no GPU visible (CI has none); run on a GPU machine")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


class Cli:
    def __init__(self):
        self.runner = CliRunner()

    def __call__(self, *args: str, expect: int = 0):
        result = self.runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "240"})
        assert result.exit_code == expect, (
            f"exit {result.exit_code}, expected {expect}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
        assert "Traceback" not in result.stdout + result.stderr
        return result


@pytest.fixture
def cli() -> Cli:
    return Cli()


def traced(tmp_path: Path, cli: Cli, program: str) -> Path:
    """A capture of PROGRAM (a script's text) traced against the simulated H100: its folder."""
    import sys

    script, out = tmp_path / "program.py", tmp_path / "t"
    script.write_text(program)
    cli("trace", "--target", "sm90", "-o", out, "--", sys.executable, script)
    return out


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """The fault suite's caches (tests/fault_suite.py), warmed once per test module of it."""
    from fault_suite import warm_caches

    return warm_caches(tmp_path_factory)


def make_request(file: str, target: str = "sm90", **flags) -> VariantRequest:
    """A request as the command line makes it: constexprs and args given as NAME=VALUE text."""
    for key, flag in (("constexprs", "-c"), ("args", "-a")):
        flags[key] = assignments(list(flags.get(key, ())), flag)
    if flags.get("dtype"):
        flags["dtype"] = check_dtype(flags["dtype"])
    return VariantRequest(file=file, target=target, **flags)


@functools.cache
def compiled(file: str, target: str = "sm90", **flags):
    """A compilation, shared between tests (compiling is the slow part)."""
    return compile_request(make_request(file, target, **flags))
