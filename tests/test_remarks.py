"""MLIR remarks (`MLIR_ENABLE_DIAGNOSTICS=remarks`): captured around each compile, kept for cache hits,
and given to the findings they explain or made findings of their own, on real compiles."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from conftest import compiled, make_request
from test_explain import DOT, MATMUL, X_LOAD, line_of, of_kind

from tritonscope.analysis import findings
from tritonscope.app.explain import explain, explain_compilation
from tritonscope.app.walk.prepare import compile_request
from tritonscope.captures.compiled import read_compilation
from tritonscope.core.stages import Stage
from tritonscope.parsers import mlir_diagnostics
from tritonscope.triton_api import remarks as compiler

B_LOAD = line_of(MATMUL, "b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)")
MMA_V3 = "MMA version 3 acceleration not applied due to unsupported shapes or data types."

PRINTED = """\
/k/kernel.py:12:9: remark: MMA version 3 acceleration not applied due to unsupported shapes or data types.
    c = tl.dot(a, b)
        ^
/k/kernel.py:12:9: note: Target compute capability (90) supports MMA v3.
/k/kernel.py:12:9: remark: MMA version 3 acceleration not applied due to unsupported shapes or data types.
    c = tl.dot(a, b)
        ^
/k/kernel.py:12:9: note: Target compute capability (90) supports MMA v3.
/k/helpers.py:4:12: remark: Warning: vectorization fails vec = 1 origin vec = 4 numElems = 8 mask is 1

    return tl.load(p, mask=m)
           ^
/k/helpers.py:4:12: note: called from
/k/kernel.py:10:9: note: called from
loc("/k/kernel.py":13:5): warning: something without a file position
ptxas info    : a line that is no diagnostic
/k/kernel.py:14:5: error: 'tt.store' op failed to verify
    tl.store(c_ptr, c)
    ^
"""


def test_printed_remarks_are_read_once_each_with_notes_and_call_sites():
    remarks, rest = mlir_diagnostics.parse(PRINTED)
    assert [(r.severity, r.locations) for r in remarks] == [
        ("remark", (("/k/kernel.py", 12),)),
        ("remark", (("/k/helpers.py", 4), ("/k/kernel.py", 10))),
        ("warning", (("/k/kernel.py", 13),)),
    ]
    dot, load, warning = remarks
    assert dot.message == MMA_V3 and dot.notes == ("Target compute capability (90) supports MMA v3.",)
    assert dot.text == f"{MMA_V3} Target compute capability (90) supports MMA v3."
    assert load.message == "Warning: vectorization fails vec = 1 origin vec = 4 numElems = 8 mask is 1"
    assert warning.message == "something without a file position"
    # What is not a remark stays, errors with their source line, for the compile error that quotes them.
    assert rest.splitlines() == [
        "ptxas info    : a line that is no diagnostic",
        "/k/kernel.py:14:5: error: 'tt.store' op failed to verify",
        "    tl.store(c_ptr, c)",
        "    ^",
    ]


def test_a_dot_without_wgmma_carries_triton_s_remark():
    result = explain_compilation(compiled("sample:matmul", "sm90", constexprs=("BLOCK_SIZE_M=32",)))
    (matrix,) = of_kind(result, findings.MATRIX)
    assert matrix.line == DOT and "the M tile is 32" in matrix.message
    assert matrix.remarks == (f"{MMA_V3} Target compute capability (90) supports MMA v3.",)
    assert not of_kind(result, findings.REMARK)  # given to the finding it explains, not repeated


def test_a_remark_a_finding_explains_is_carried_by_it_on_its_line():
    """On sm100 a dot with a 32-row tile gets no tcgen05 (MMA v5): Triton says so, and the target-aware
    finding about that dot carries the remark (no separate remark finding repeats it)."""
    result = explain_compilation(compiled("sample:matmul", "sm100", constexprs=("BLOCK_SIZE_M=32",)))
    (dot,) = of_kind(result, "dot-not-on-tcgen05")
    assert dot.line == DOT == 35
    assert dot.remarks == (
        "MMA version 5 acceleration not applied due to unsupported shapes or data types. "
        "Target compute capability (100) supports MMA v5.",
    )
    assert not of_kind(result, findings.REMARK)


def test_a_what_if_that_ptxas_refuses_is_said_in_one_line():
    """The same fp8 tile at --maxnreg 80 (occupancy's next step) does not assemble: the finding quotes
    ptxas's error, not Triton's wrapper and the PTX reproducer after it."""
    result = explain(make_request("sample:matmul", "sm90", args=["a_ptr=*fp8e4nv", "b_ptr=*fp8e4nv"]))
    (occupancy,) = of_kind(result, findings.OCCUPANCY)
    assert occupancy.what_if == (("option", "maxnreg", 80),)
    # ptxas-blackwell is what 3.9 runs for sm90
    assert re.match(
        r"--maxnreg 80: the compile fails \(ptxas(-blackwell)? fatal : \(C7602\) Insufficient registers \(80\)",
        occupancy.verified,
    )
    assert "\n" not in occupancy.verified and len(occupancy.verified) < 300


def test_the_warning_that_disables_a_load_s_pipelining_is_the_not_pipelined_cause():
    """fp8 on sm90: wgmma reads B K-major, B is N-major here, so Triton transposes it in registers and
    does not pipeline its load; the finding on that load says so with Triton's own words."""
    result = explain_compilation(compiled("sample:matmul", "sm90", args=("a_ptr=*fp8e4nv", "b_ptr=*fp8e4nv")))
    (loop,) = of_kind(result, findings.NOT_PIPELINED)
    assert loop.line == B_LOAD and loop.lines == (B_LOAD, DOT)
    assert f"Triton transposes an operand of the tl.dot on line {DOT} in registers" in loop.message
    assert loop.evidence.endswith(f"on Python line {B_LOAD}") and "K-major" in loop.suggestion
    (said,) = loop.remarks
    assert said.startswith(
        "Warning: Forcing a different order [0, 1] on SMEM than the register order for the operand 1"
    )
    assert said.endswith(
        "consider transposing the operand in global memory to remove the need to transpose the tensor in registers."
    )
    assert not of_kind(result, findings.REMARK)


def test_vectorization_remarks_belong_to_the_narrow_access_findings():
    result = explain_compilation(compiled("sample:vector_add", "sm90", args=("n_elements=4099",)))
    narrow = {f.line: f for f in of_kind(result, findings.NARROW)}
    assert narrow[X_LOAD].remarks == ("Warning: vectorization fails vec = 1 origin vec = 4 numElems = 8 mask is 1",)
    assert len(result.findings) == 3 and not of_kind(result, findings.REMARK)
    assert not of_kind(explain_compilation(compiled("sample:vector_add", "sm90")), findings.NARROW)
    assert compiled("sample:vector_add", "sm90").remarks == ()


def test_remarks_come_back_with_a_cache_hit_and_their_loss_is_said(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    request = make_request("sample:vector_add", "sm90", args=["n_elements=4099"], constexprs=["BLOCK_SIZE=512"])
    first, second = compile_request(request), compile_request(request)
    assert not first.cache_hit and second.cache_hit
    assert len(first.remarks) == 3 and second.remarks == first.remarks
    assert os.environ.get(compiler.DIAGNOSTICS_ENV) is None  # set for the compile only
    (kept,) = (tmp_path / "tritonscope").glob("*.remarks")
    kept.unlink()
    third = compile_request(request)
    assert third.cache_hit and third.remarks == () and compiler.REMARKS_UNKNOWN in third.notices


def test_a_kernel_read_from_the_cache_has_its_remarks_and_the_ptx_lines_shown(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    fresh = compile_request(make_request("sample:matmul", "sm80", constexprs=["BLOCK_SIZE_K=32"], specialize=False))
    read = read_compilation(f"{tmp_path}/:matmul_kernel")
    assert len(fresh.remarks) == 3 and read.remarks == fresh.remarks
    assert read.stages[Stage.SASS] == fresh.stages[Stage.SASS] and read.stages[Stage.PTX] == fresh.stages[Stage.PTX]


def test_the_user_sees_remarks_as_findings_never_as_raw_stderr(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "COLUMNS": "200"}
    command = [sys.executable, "-m", "tritonscope", "explain", "sample:vector_add", "-a", "n_elements=4099"]
    shown = subprocess.run([*command, "--target", "sm90", "--no-what-if"], capture_output=True, text=True, env=env)
    assert shown.returncode == 0, shown.stderr
    assert "remark:" not in shown.stderr and "vectorization" not in shown.stderr
    assert "Triton says: Warning: vectorization fails vec = 1 origin vec = 4 numElems = 8" in shown.stdout
    document = subprocess.run(
        [sys.executable, "-m", "tritonscope", "explain", "sample:matmul", "--target", "sm100"]
        + ["-c", "BLOCK_SIZE_M=32", "--json", "--no-what-if"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert document.returncode == 0 and "remark:" not in document.stderr
    found = json.loads(document.stdout)["findings"]
    remark = next(f for f in found if f["kind"] == "dot-not-on-tcgen05")
    assert remark["line"] == DOT and remark["remarks"][0].startswith("MMA version 5 acceleration not applied")


def test_turings_fma_dot_carries_triton_s_remark_and_its_cause():
    """On sm75 Triton lowers the dot to FMA and remarks that MMA there is deprecated: the remark is the
    dot finding's (it was a finding of its own), whose cause and advice say Turing, not fp32 operands."""
    result = explain_compilation(compiled("sample:matmul", "sm75"))
    (matrix,) = of_kind(result, findings.MATRIX)
    assert matrix.line == DOT and "Triton lowers dots to FMA on Turing (sm75)" in matrix.message
    assert "sm80 or newer" in matrix.suggestion and "fp16/bf16 operands" not in matrix.suggestion
    assert any("falls back to the FMA path" in remark for remark in matrix.remarks)
    assert not of_kind(result, findings.REMARK)
