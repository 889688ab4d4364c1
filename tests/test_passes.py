"""`tritonscope passes`: the pipeline captured from a real compile in a child process."""

from __future__ import annotations

import functools
import json
import re

import pytest
from conftest import KERNELS, make_request
from hypothesis import given, settings
from hypothesis import strategies as st

from tritonscope.analysis import passes
from tritonscope.app.passes import _Capture, _dump_env
from tritonscope.app.passes import passes as run_passes
from tritonscope.parsers.pass_dump import PassDumpError, parse_llvm, parse_mlir


@functools.cache
def _result(file: str, target: str, llvm: bool = False, **flags):
    return run_passes(make_request(file, target, **flags), None, llvm, 600)


@functools.cache
def _dump(file: str, target: str, llvm: bool = False, **flags) -> str:
    """Triton's pass-by-pass IR dumps of one compile, captured in an isolated worker as `passes` does."""
    with _Capture(_dump_env(llvm), 600) as capture:
        return capture.dump(make_request(file, target, **flags))


def _records(file: str, target: str, **flags):
    return list(_result(file, target, **flags).records)


def test_vector_add_pipeline_in_order():
    records = _records("sample:vector_add", "sm90")
    names = [r.name for r in records]
    assert len(records) > 40 and [r.index for r in records] == list(range(1, len(records) + 1))
    order = [
        names.index(n) for n in ("convert-triton-to-tritongpu", "tritongpu-coalesce", "convert-triton-gpu-to-llvm")
    ]
    assert order == sorted(order)
    assert [r.level for r in records if r.name == "tritongpu-coalesce"] == ["TTGIR"]
    assert records[0].level == "TTIR" and records[-1].level == "LLVM dialect"
    canonicalize = [r for r in records if r.name == "canonicalize"]
    assert [r.occurrence for r in canonicalize] == list(range(1, len(canonicalize) + 1)) and len(canonicalize) > 2


def test_coalesce_changes_the_layout():
    (coalesce,) = passes.select(_records("sample:vector_add", "sm90"), "tritongpu-coalesce")
    assert coalesce.changed and coalesce.added > 0
    diff = "\n".join(coalesce.diff())
    assert "+#blocked1 = #ttg.blocked<{sizePerThread = [4]" in diff and "ttg.convert_layout" in diff
    assert "loc(" not in diff


def test_the_last_snapshot_is_the_llvm_dialect_module():
    last = _records("sample:vector_add", "sm90")[-1]
    assert last.after is not None and "llvm.func @add_kernel" in last.after
    triton_ops = re.compile(r"^\s*(%\S+ = )?(tt|ttg|ttng)\.\w+ ")
    assert not [line for line in last.after.splitlines() if triton_ops.match(line)]


@pytest.mark.parametrize("target", ["sm80", "sm90"])
def test_the_pipeliner_pipelines_only_with_several_stages(target):
    def pipeliner(stages):
        records = _records("sample:matmul", target, num_stages=stages)
        # Its internal dumps are steps of the pass, never passes of their own.
        assert not any("SoftwarePipeliner" in r.name for r in records)
        (found,) = [r for r in records if r.name == "tritongpu-pipeline"]
        return found, "\n".join(found.diff())

    three, three_diff = pipeliner(3)
    assert three.changed and "ttg.async_copy_global_to_local" in three_diff and three.added > 50
    assert [name for name, _ in three.substeps] == ["SoftwarePipeliner: LowerLoops", "SoftwarePipeliner: ExpandLoops"]
    one, one_diff = pipeliner(1)
    assert "async_copy_global_to_local" not in one_diff  # no software pipelining with one stage
    if target == "sm80":
        assert one.changed is False
    else:  # on Hopper the pass still makes the warp-group dot asynchronous, then waits for it at once
        assert one.added <= 3 and "ttng.warp_group_dot_wait" in one_diff


def test_gfx942_runs_its_own_amd_passes():
    names = {r.name for r in _records("sample:vector_add", "gfx942")}
    assert any(name.startswith("tritonamdgpu-") for name in names)
    assert "convert-triton-amdgpu-to-llvm" in names and "tritongpu-coalesce" in names


def test_cli_table_show_full_changed_json(cli):
    table = cli("passes", "sample:vector_add", "-t", "sm90").stdout
    assert "tritongpu-coalesce" in table and "TritonGPUCoalesce" in table and "1 of " in table
    only = cli("passes", "sample:vector_add", "-t", "sm90", "--changed").stdout
    assert "tritongpu-coalesce" in only and "triton-combine" not in only
    shown = cli("passes", "sample:vector_add", "-t", "sm90", "--show", "canonicalize#1").stdout
    # the class is Canonicalizer up to 3.7 and CanonicalizerPass since 3.8 (MLIR's new dump header)
    assert "pass 2: canonicalize#1 (Canonicalizer" in shown and "--- before canonicalize#1" in shown
    full = cli("passes", "sample:vector_add", "-t", "sm90", "--show", "11", "--full").stdout
    assert "the IR after it" in full and "#blocked1 = #ttg.blocked" in full
    doc = json.loads(
        cli("passes", "sample:vector_add", "-t", "gfx942", "--json", "--show", "tritongpu-coalesce").stdout
    )
    assert doc["kind"] == "passes" and len(doc["passes"]) > 40
    coalesce = next(p for p in doc["passes"] if p["name"] == "tritongpu-coalesce")
    assert coalesce["changed"] and coalesce["diff"]


def test_llvm_passes_are_a_second_section(cli):
    out = cli("passes", "sample:vector_add", "-t", "sm90", "--llvm", "--changed").stdout
    assert "LLVM passes (LLVM IR after each)" in out and "InstCombinePass" in out and "[module]" in out
    doc = json.loads(cli("passes", "sample:vector_add", "-t", "sm90", "--llvm", "--json").stdout)
    assert len(doc["llvm_passes"]) > 20 and any(p["changed"] for p in doc["llvm_passes"])
    # the MLIR passes are those without --llvm: LLVM's pass manager log ("Running pass: ...") and its
    # codegen passes' dumps ("*** IR Dump After ...") were read as the last MLIR passes' IR (+78,581 lines)
    plain = json.loads(cli("passes", "sample:vector_add", "-t", "sm90", "--json").stdout)
    changes = [[(p["name"], p["added"], p["removed"]) for p in d["passes"]] for d in (plain, doc)]
    assert changes[0] == changes[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--show", "tritongpu-coalese"], "no such pass in this pipeline. Did you mean tritongpu-coalesce"),
        (["--show", "500"], "there are"),
        (["-c", "BLOCK_SIZE"], "expects NAME=VALUE"),
    ],
)
def test_bad_passes_requests(cli, args, message):
    assert message in cli("passes", "sample:vector_add", "-t", "sm90", *args, expect=2).stderr


def test_a_kernel_that_does_not_compile(cli):
    result = cli("passes", "sample:vector_add", "-t", "sm90", "-c", "BLOCK_SIZE=100", expect=1)
    assert "arange's range must be a power of 2" in result.stderr


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_the_parser_survives_truncated_and_garbled_dumps(data):
    dump = _dump("sample:vector_add", "sm90", llvm=True)
    start = data.draw(st.integers(0, len(dump)))
    piece = dump[start : data.draw(st.integers(start, min(len(dump), start + 60000)))]
    cut = data.draw(st.integers(0, len(piece)))
    noise = data.draw(st.text(alphabet="/-IR Dump Before()' ;*\n@#", max_size=60))
    garbled = piece[:cut] + noise + piece[cut:]
    try:
        records = passes.build(garbled)
    except PassDumpError as exc:
        assert "no '// -----// IR Dump Before' sections" in str(exc)
    else:
        assert all(r.index == i for i, r in enumerate(records, start=1))
    assert isinstance(parse_llvm(garbled), list)
    with pytest.raises(PassDumpError):
        parse_mlir("not a dump at all")


def test_pass_records_are_kept_and_a_damaged_memo_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    kernel = tmp_path / "k.py"
    kernel.write_text((KERNELS / "mixed.py").read_text())
    request = make_request(str(kernel), "sm90", kernel="tuned_kernel")
    first = run_passes(request, None, False, 600)
    (memo,) = (tmp_path / "tritonscope" / "passes").iterdir()
    again = run_passes(request, "tritongpu-coalesce", False, 600)  # from the memo: same records
    assert [r.name for r in again.records] == [r.name for r in first.records]
    assert again.selected and again.selected[0].name == "tritongpu-coalesce"
    memo.write_bytes(memo.read_bytes()[:100])  # cut short: ignored, captured again, kept again
    assert [r.name for r in run_passes(request, None, False, 600).records] == [r.name for r in first.records]
    assert len(memo.read_bytes()) > 100
    kernel.write_text(kernel.read_text().replace("+ 1, mask", "+ 2, mask"))  # another kernel: another memo
    run_passes(make_request(str(kernel), "sm90", kernel="tuned_kernel"), None, False, 600)
    assert len(list((tmp_path / "tritonscope" / "passes").iterdir())) == 2


def test_ir_compared_across_releases_drops_what_one_release_writes_on_every_kernel():
    """Triton 3.9 writes `allocation.size` beside every `allocation.offset`: `passes --vary triton=` named
    allocate-shared-memory-nv the first difference, for that attribute alone, on softmax."""
    six = "    }) {allocation.offset = 0 : i32} : (tensor<1024xf32, #blocked>) -> f32"
    nine = "    }) {allocation.offset = 0 : i32, allocation.size = 16 : i32} : (tensor<1024xf32, #blocked>) -> f32"
    assert passes.comparable_across(six) == passes.comparable_across(nine)
    module = 'module attributes {"ttg.num-warps" = 4 : i32, "ttng.two-ctas" = false} {'
    assert passes.comparable_across(module) == passes.comparable_across(
        'module attributes {"ttg.num-warps" = 4 : i32} {'
    )
