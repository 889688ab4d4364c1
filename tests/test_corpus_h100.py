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

import pytest
import triton
from corpus_fidelity import SUMMARY, capture_h100, cross_release, exact, held_by_torch_of, load, traced_two_at_a_time

torch = pytest.importorskip("torch")  # the smoke runs of other releases install no torch

VERSIONS, SAME_TORCH = held_by_torch_of(SUMMARY)
pytestmark = pytest.mark.skipif(
    triton.__version__ != VERSIONS["triton"], reason=f"the H100 summary was compiled by Triton {VERSIONS['triton']}"
)


@pytest.fixture(scope="module")
def traced(request, tmp_path_factory):
    yield from traced_two_at_a_time(request, tmp_path_factory.mktemp("corpus"))


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
