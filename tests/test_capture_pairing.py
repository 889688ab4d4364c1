"""Pairing two captures' compiles (analysis/capture_pairs.py), on summaries of real compiles read from a
capture, varied where a test needs a case the program does not make: several compiles of one
kernel that all changed, a renamed source, an added compile."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest
from conftest import KERNELS

from tritonscope.analysis.capture_pairs import KernelFigures, compare, pair
from tritonscope.app.capture_summaries import summaries
from tritonscope.captures.folder import open_capture


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    from conftest import Cli

    out = tmp_path_factory.mktemp("pairing") / "run"
    Cli()("trace", "--target", "sm90", "-o", out, "--", sys.executable, KERNELS / "launch_program.py")
    capture = open_capture(out)
    read = summaries([capture], 1, 300, findings=True)
    return {(k.name, dict(k.specialization)["c:BLOCK"]): k for k in read.values()}


def test_each_compile_of_a_kernel_meets_its_counterpart(kernels):
    big, small = kernels[("scale_kernel", "1024")], kernels[("scale_kernel", "256")]
    moved = [_with_block(big, "2048"), _with_block(small, "512")]  # both compiles changed their block
    pairs = pair([big, small], moved)
    assert [(p.before.hash, p.after.hash) for p in pairs] == [(big.hash, moved[0].hash), (small.hash, moved[1].hash)]
    assert [p.how for p in pairs] == [
        "same launches, specialization changed: BLOCK 1024 -> 2048",
        "same launches, specialization changed: BLOCK 256 -> 512",
    ]


def test_a_source_change_is_said_and_an_unmatched_compile_is_added(kernels):
    add, relu = kernels[("add_kernel", "256")], kernels[("relu_kernel", "1024")]
    edited = replace(add, source="another", hash="x" * 64)
    pairs = pair([add], [edited, relu])
    assert [(p.name, p.status, p.how) for p in pairs] == [
        ("add_kernel", "same", "same specialization, source changed"),
        ("relu_kernel", "added", ""),
    ]


def test_a_compile_against_another_kernels_figures_changes_with_deltas(kernels):
    add, row_sum = kernels[("add_kernel", "256")], kernels[("row_sum_kernel", "128")]
    p = compare(add, replace(row_sum, name="add_kernel"))
    assert p.status == "changed"
    shared = next(c for c in p.changes if c.figure == "shared")
    assert (shared.before, shared.after, shared.delta, shared.regression) == (0, 1040, 1040, True)


def _with_block(k, block: str):
    spec = tuple((n, block if n == "c:BLOCK" else v) for n, v in k.specialization)
    return replace(k, specialization=spec, hash=k.hash[::-1])


def _compiled_for(hash_: str, pointee: str, block: str, source: str, *options) -> KernelFigures:
    spec = tuple(sorted([("s:x_ptr", pointee), ("s:out_ptr", pointee), ("c:BLOCK", block), *options]))
    return KernelFigures("softmax_kernel", hash_, "sm90", "3.6.0", source, spec, (), {"registers": 16}, {}, None, "")


def test_a_compile_meets_its_counterpart_of_the_same_element_types_first():
    """A program's fp32 and fp16 compiles of one kernel, edited (its source, its warps, the fp16 block):
    the fp16 compile was paired with the fp32 one of its block (its loads half as wide: "worse", a CI
    gate failed) and the old fp16 compile said removed."""
    before = [_compiled_for("a", "*fp32", "128", "old"), _compiled_for("b", "*fp16", "64", "old")]
    after = [
        _compiled_for("c", "*fp32", "128", "new", ("num_warps", "8")),
        _compiled_for("d", "*fp16", "128", "new", ("num_warps", "8")),
    ]
    assert {(p.before.hash, p.after.hash) for p in pair(before, after)} == {("a", "c"), ("b", "d")}


def test_a_finding_of_a_new_kind_is_a_regression_and_a_changed_message_is_not(kernels):
    add = kernels[("add_kernel", "256")]
    (first, *_) = add.findings
    reworded = replace(add, hash="y" * 64, code="other", findings=(replace(first, message="wider now"),))
    p = compare(add, reworded)
    assert p.status == "changed" and p.appeared == (f"{first.kind}: wider now",) and not p.regression
    spilling = replace(reworded, findings=(*reworded.findings, replace(first, kind="spills", message="spills 8 words")))
    p = compare(add, spilling)
    assert p.new_kinds == ("spills",) and p.regression


def test_one_compile_on_both_sides_pairs_by_its_hash_and_each_row_names_its_hashes(kernels):
    """A compile whose Triton hash both captures hold is the same compile, whatever its recorded source
    (its file's path) says; rows of one kernel with the same constexprs are told apart by their hashes;
    a figure in bytes says its unit after each value."""
    from tritonscope.render.terminal.captures import _kernel, change_text

    add = kernels[("add_kernel", "256")]
    moved = replace(add, source="read from another folder", shapes=("grid (9, 1, 1): f32[2304]",))
    (same,) = pair([add], [moved])
    assert same.status == "same" and same.how == "the same compile (its hash), launch shapes differ"
    assert str(_kernel(same)) == f"add_kernel [BLOCK=256] @{add.hash[:8]}"
    other = _with_block(add, "256")  # another hash, the same constexprs
    (changed,) = pair([add], [other])
    assert str(_kernel(changed)) == f"add_kernel [BLOCK=256] @{add.hash[:8]} -> @{other.hash[:8]}"
    row_sum = kernels[("row_sum_kernel", "128")]
    shared = next(c for c in compare(add, replace(row_sum, name="add_kernel")).changes if c.figure == "shared")
    assert str(change_text(shared)) == "shared memory 0 B -> 1.016 KiB (+1.016 KiB) worse"  # as sizes read elsewhere
