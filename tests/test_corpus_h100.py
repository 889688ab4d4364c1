"""The corpus of real programs (tests/programs/) traced here with `trace --target sm90`, each held
against what two cold-cache runs on a real H100 compiled and launched (tests/programs/h100/summary.json,
tests/corpus_fidelity.py says how).

Under the H100's torch release (2.11) the hold is exact: the same compiles (name, specialization,
options, PTX), none missing, none extra, and every kernel's launches with the same arguments; only
max-autotune's kernels chosen by timings (the names its two H100 runs disagree on) are set apart.
Under another torch (CI's 2.13 CPU build) Inductor writes other kernel text and fuses differently
(llama_train compiles 57 kernels there, 69 on the H100's 2.11), so what is held is what a torch
release does not change: the program runs to its end, every compile whose kernel text and
specialization are the H100's has the H100's PTX and launches, and torch picks the H100's attention
kernels (docs/corpus.md has the figures of both).

The traces run two at a time (each is one process, mostly one core busy); the programs need
transformers, timm and torchvision (the README's test command installs them).
"""

from __future__ import annotations

import concurrent.futures
import json
import subprocess
import sys
from pathlib import Path

import pytest
import triton
from corpus_fidelity import SUMMARY, capture_h100, cross_release, exact, load

torch = pytest.importorskip("torch")  # the smoke runs of other releases install no torch

HERE = Path(__file__).parent
VERSIONS = json.loads(SUMMARY.read_text())["versions"]
SAME_TORCH = torch.__version__.split("+")[0] == VERSIONS["torch"].split("+")[0]
pytestmark = pytest.mark.skipif(
    triton.__version__ != VERSIONS["triton"], reason=f"the H100 summary was compiled by Triton {VERSIONS['triton']}"
)

_pool = concurrent.futures.ThreadPoolExecutor(2)
_traces: dict[str, concurrent.futures.Future] = {}


def _trace(program: str, out: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "tritonscope", "trace", "--target", "sm90", "--launches", "100", "-o", str(out)]
    command += ["--", sys.executable, str(HERE / "programs" / f"{program}.py")]
    return subprocess.run(command, capture_output=True, text=True, timeout=1800)


@pytest.fixture(scope="module")
def traced(request, tmp_path_factory):
    """program -> (its trace's process, its capture), the selected programs traced two at a time."""
    folder = tmp_path_factory.mktemp("corpus")
    wanted = [item.callspec.params["program"] for item in request.session.items if item.fspath == request.fspath]
    for program in dict.fromkeys(wanted):
        _traces[program] = _pool.submit(_trace, program, folder / program)
    yield lambda program: (_traces[program].result(), folder / program)
    _pool.shutdown(cancel_futures=True)


@pytest.mark.parametrize("program", capture_h100.PROGRAMS)
def test_the_program_compiles_and_launches_as_on_the_h100(traced, program):
    done, capture = traced(program)
    assert done.returncode == 0 and f"corpus {program}: done" in done.stdout, done.stderr[-3000:]
    h100 = load(program)
    if SAME_TORCH:
        figures = exact(h100, capture)
        assert figures["missing"] == [] and figures["extra"] == [], figures
        assert figures["launches_differ"] == [] and figures["launches_matched"] > 0, figures
        return
    figures = cross_release(h100, capture)
    assert figures["ptx_differs"] == [] and figures["launches_differ"] == [], figures
    h100_attention, attention = figures["attention"]
    assert attention == h100_attention, figures  # torch picked the H100's attention kernels
