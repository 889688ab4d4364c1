"""Issue 51's programs (tests/programs/, capture_h100.HOST_VALUE_PROGRAMS: generate() with the
dynamic and the static cache, an MoE router's loss, boolean-mask indexing, GradScaler, dropout in
attention, tied embeddings) traced here with `trace --target sm90`, their reads answered with values
computed on the host, each held against what two cold-cache runs on an H200 compiled and launched
(tests/programs/h200/summary.json, built by tests/corpus_fidelity.py from the H200's
corpus_round5.json and texts; torch 2.11.0+cu130, Triton 3.6.0, transformers 5.17.0).

As tests/test_corpus_h100.py holds the corpus: under the H200's torch release (2.11) the hold is
exact (the same compiles, none missing, none extra, the same launches); under another torch (CI's
2.13 CPU build) every compile whose kernel text and specialization are the H200's has its PTX and
launches, and each program runs to its end. The traces run two at a time."""

from __future__ import annotations

import concurrent.futures
import json
import subprocess
import sys
from pathlib import Path

import pytest
import triton
from corpus_fidelity import capture_h100, cross_release, exact, load

torch = pytest.importorskip("torch")

HERE = Path(__file__).parent
SUMMARY = HERE / "programs" / "h200" / "summary.json"
VERSIONS = json.loads(SUMMARY.read_text())["versions"]
SAME_TORCH = torch.__version__.split("+")[0] == VERSIONS["torch"].split("+")[0]
pytestmark = pytest.mark.skipif(
    triton.__version__ != VERSIONS["triton"], reason=f"the H200 summary was compiled by Triton {VERSIONS['triton']}"
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
    folder = tmp_path_factory.mktemp("host-values-corpus")
    wanted = [item.callspec.params["program"] for item in request.session.items if item.fspath == request.fspath]
    for program in dict.fromkeys(wanted):
        _traces[program] = _pool.submit(_trace, program, folder / program)
    yield lambda program: (_traces[program].result(), folder / program)
    _pool.shutdown(cancel_futures=True)


@pytest.mark.parametrize("program", capture_h100.HOST_VALUE_PROGRAMS)
def test_the_program_compiles_and_launches_as_on_the_h200(traced, program):
    done, capture = traced(program)
    assert done.returncode == 0 and f"corpus {program}: done" in done.stdout, done.stderr[-3000:]
    h200 = load(program, SUMMARY)
    if SAME_TORCH:
        figures = exact(h200, capture)
        assert figures["missing"] == [] and figures["extra"] == [], figures
        assert figures["launches_differ"] == [] and figures["launches_matched"] > 0, figures
        return
    figures = cross_release(h200, capture)
    assert figures["ptx_differs"] == [] and figures["launches_differ"] == [], figures
