"""Issue 51's programs (tests/programs/, capture_h100.HOST_VALUE_PROGRAMS: generate() with the
dynamic and the static cache, an MoE router's loss, boolean-mask indexing, GradScaler, dropout in
attention, tied embeddings) traced here with `trace --target sm90`, their reads answered with values
computed on the host, each held against what two cold-cache runs on an H200 compiled and launched
(tests/programs/h200/summary.json, built by tests/corpus_fidelity.py from the H200's
corpus_round5.json and texts; torch 2.11.0+cu130, Triton 3.6.0, transformers 5.17.0).

As tests/test_corpus_h100.py holds the corpus, by the torch release that runs the test:

- the H200's (2.11): exact. The same compiles (name, specialization, options, PTX), none missing,
  none extra, every kernel launched with the same arguments (all but which config an autotuner
  kept: a GPU times them, the simulated GPU keeps the first).
- another (CI's 2.13 CPU build): only what a torch release does not change, since Inductor 2.13
  writes other kernels for the same programs (moe_router_train: 99 compiles against 129, 12 of
  the same text). Each program runs to its end, and every compile whose kernel text and
  specialization are the H200's has its PTX and its kind's launches (corpus_fidelity.cross_release:
  a kernel's launches pooled across graphs by its text with its own name set aside, each tensor as
  the kernel gets it). Not held there: kernel names and counts, and the shapes of the views
  Inductor's code passes (2.11 passes moe_router_train's `_19` a (256, 64) buffer where 2.13
  allocates it as (4, 64, 2, 32): the same pointer and elements).

The traces run two at a time."""

from __future__ import annotations

import pytest
import triton
from corpus_fidelity import H200_SUMMARY as SUMMARY
from corpus_fidelity import capture_h100, cross_release, exact, held_by_torch_of, load, traced_two_at_a_time

torch = pytest.importorskip("torch")

VERSIONS, SAME_TORCH = held_by_torch_of(SUMMARY)
pytestmark = pytest.mark.skipif(
    triton.__version__ != VERSIONS["triton"], reason=f"the H200 summary was compiled by Triton {VERSIONS['triton']}"
)


@pytest.fixture(scope="module")
def traced(request, tmp_path_factory):
    yield from traced_two_at_a_time(request, tmp_path_factory.mktemp("host-values-corpus"))


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
