"""Target-aware findings (analysis/findings/target.py), each on a real compile that shows it and one that does not."""

from __future__ import annotations

from conftest import KERNELS, compiled, make_request

from tritonscope.analysis import findings as tf
from tritonscope.analysis import ttgir
from tritonscope.app.explain import explain, explain_compilation
from tritonscope.app.walk.prepare import compile_undisassembled, finish
from tritonscope.core.samples import sample_path
from tritonscope.core.stages import Stage


def kinds(result, kind: str) -> list:
    return [f for f in result.findings if f.kind == kind]


def line_of(sample: str, text: str) -> int:
    lines = sample_path(sample).read_text().splitlines()
    return next(n for n, code in enumerate(lines, start=1) if code.strip() == text)


def test_cp_async_tiles_feeding_a_dot_on_sm90_are_tma_candidates():
    result = explain_compilation(compiled("sample:matmul", "sm90"))
    found = {f.line: f for f in kinds(result, tf.TMA)}
    a_line = line_of("matmul", "a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)")
    b_line = line_of("matmul", "b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)")
    assert set(found) == {a_line, b_line}
    a = found[a_line]
    assert "128x64xf16 tile feeding tl.dot is copied with cp.async (LDGSTS)" in a.message
    assert "ttg.async_copy_global_to_local" in a.evidence and "0 UTMALDG" in a.evidence
    assert int(a.evidence.split(" LDGSTS")[0].rsplit(" ", 1)[1]) > 0
    assert "TensorDescriptor" in a.suggestion and "tl.make_tensor_descriptor" in a.suggestion


def test_tma_loads_and_pre_hopper_targets_have_no_tma_candidate():
    # The TMA sample's tiles are copied by UTMALDG; on sm80, cp.async is the best there is.
    assert not kinds(explain_compilation(compiled("sample:matmul_tma", "sm90")), tf.TMA)
    assert not kinds(explain_compilation(compiled("sample:matmul", "sm80")), tf.TMA)


def test_attentions_score_wgmma_is_waited_for_at_issue_and_the_matmuls_is_not():
    result = explain_compilation(compiled("sample:fused_attention", "sm90"))
    (wait,) = kinds(result, tf.WGMMA_WAIT)
    assert wait.line == line_of("fused_attention", "qk = tl.dot(q, k)")
    assert "ttng.warp_group_dot_wait {pendings = 0}" in wait.evidence
    assert "num_stages=4, 4 buffers per tile" in wait.message
    assert "2 blocks share each SM" in wait.suggestion
    # The matmul's accumulator chain keeps one wgmma in flight (pendings = 1): nothing to say.
    assert not kinds(explain_compilation(compiled("sample:matmul", "sm90")), tf.WGMMA_WAIT)


def test_a_k_loops_wgmma_waited_for_its_operand_written_each_iteration_says_so():
    """A packed int4 GEMM (gemlite; mamba's rescaled B): the weights are unpacked in registers and written
    to one shared buffer every iteration, so the K loop's wgmma is waited for at issue. The advice gave
    attention's reason ("a result used at once (attention's Q K^T)") for a K loop's accumulator (h18a,
    h19a)."""
    file = str(KERNELS / "launch" / "packed_int4.py")
    result = explain_compilation(compiled(file, "sm90"))
    (wait,) = kinds(result, tf.WGMMA_WAIT)
    source = open(file).read().splitlines()
    unpacked = next(n for n, text in enumerate(source, 1) if text.strip().startswith("weights = "))
    assert f"an operand is computed in registers (line {unpacked}) and written to one shared buffer" in (
        wait.suggestion
    )
    assert "ttg.local_alloc" in wait.suggestion and "Q K^T" not in wait.suggestion
    # attention's score keeps its own reason
    (score,) = kinds(explain_compilation(compiled("sample:fused_attention", "sm90")), tf.WGMMA_WAIT)
    assert "attention's Q K^T" in score.suggestion


def test_warp_specialize_asked_on_sm90_is_said_to_be_unlowered_and_not_on_sm100():
    asked = ("WARP_SPECIALIZE=True",)
    (sm90,) = kinds(explain_compilation(compiled("sample:matmul_tma", "sm90", constexprs=asked)), tf.WARP_SPECIALIZE)
    assert "leaves it unlowered for sm_90" in sm90.message and "keeps the attribute tt.warp_specialize" in sm90.evidence
    assert not kinds(explain_compilation(compiled("sample:matmul_tma", "sm100", constexprs=asked)), tf.WARP_SPECIALIZE)


def test_warp_specialization_off_under_register_pressure_is_compiled_as_a_what_if():
    result = explain(make_request("sample:matmul_tma", "sm100"))
    (off,) = kinds(result, tf.WARP_SPECIALIZE)
    assert "registers hold one block per SM" in off.message and off.what_if == (("constexpr", "WARP_SPECIALIZE", True),)
    assert (
        off.verified.startswith("-c WARP_SPECIALIZE=True:") and "lowered to warp-specialized partitions" in off.verified
    )
    # A kernel with no warp_specialize= constexpr is not told to specialize.
    assert not kinds(explain_compilation(compiled("sample:matmul", "sm90")), tf.WARP_SPECIALIZE)


def test_a_small_dot_on_sm100_is_not_on_tcgen05_and_a_large_one_is():
    small = explain_compilation(compiled("sample:matmul", "sm100", constexprs=("BLOCK_SIZE_M=32",), num_warps=2))
    (dot,) = kinds(small, tf.TCGEN05)
    assert dot.line == line_of("matmul", "accumulator = tl.dot(a, b, accumulator)")
    assert "32x64xf16" in dot.evidence and "no ttng.tc_gen5_mma" in dot.evidence
    assert any("MMA version 5" in r for r in dot.remarks)  # Triton's own remark, joined to the finding
    assert not kinds(explain_compilation(compiled("sample:matmul", "sm100")), tf.TCGEN05)


def test_shared_memory_is_broken_down_by_buffer_with_the_targets_and_stages_it_fits():
    result = explain(make_request("sample:matmul_tma", "sm90"))
    (shared,) = kinds(result, tf.SHARED_BUFFERS)
    b_line = line_of("matmul_tma", "b = b_desc.load([k * BLOCK_SIZE_K, offs_n])")
    assert shared.line == b_line
    assert "fits sm_90, sm_100, sm_103, sm_110; too much for sm_80 (163 KiB)" in shared.message
    assert "(99 KiB), if their compiles kept these buffers" in shared.message
    assert "as compiled for sm_90" in shared.message and "OutOfResources" not in shared.message
    assert f"line {b_line}: 3x64x256xf16, nvmma_shared swizzle 128 = 96 KiB (3 stages x 32 KiB)" in shared.evidence
    assert "num_stages=2: about 129 KiB, fits sm_80, sm_90, sm_100" in shared.suggestion
    assert shared.verified.startswith("--num-stages 2:") and "129 KiB shared" in shared.verified


def test_shared_memory_that_fits_every_target_has_no_breakdown():
    assert not kinds(explain_compilation(compiled("sample:matmul", "sm90")), tf.SHARED_BUFFERS)


def test_on_gfx950_tiles_through_registers_are_lds_bypass_candidates_and_not_on_gfx942():
    c = compiled("sample:matmul", "gfx950")
    result = explain_compilation(c)
    if "amdg.buffer_load_to_local" in c.stages[Stage.TTGIR]:  # Triton 3.9 loads straight into LDS by itself
        assert not kinds(result, tf.LDS_BYPASS)
        return
    found = {f.line: f for f in kinds(result, tf.LDS_BYPASS)}
    a_line = line_of("matmul", "a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)")
    assert a_line in found and len(kinds(result, tf.LDS_BYPASS)) == 2  # one per line, the pipeline's copies together
    a = found[a_line]
    assert "128x64xf16 tile feeding the MFMA dot" in a.message and "buffer_load ... lds" in a.message
    assert "amdg.buffer_load, then line" in a.evidence and "(3 such loads in the pipeline)" in a.evidence
    assert "TRITON_HIP_USE_ASYNC_COPY=1" in a.suggestion
    # gfx942's direct-to-LDS copies move 32 bits per lane: no advice there; nor on NVIDIA targets.
    assert not kinds(explain_compilation(compiled("sample:matmul", "gfx942")), tf.LDS_BYPASS)
    assert not kinds(explain_compilation(compiled("sample:matmul", "sm90")), tf.LDS_BYPASS)


RESCALED = str(KERNELS / "gluon" / "wgmma_rescaled.py")


def test_wgmma_that_ptxas_serialized_is_found_with_its_reason_and_pipelined_wgmma_is_not():
    # The accumulator rescaled after warpgroup_mma_wait(1): ptxas serializes every wgmma.
    serialized = explain_compilation(compiled(RESCALED, "sm90", constexprs=("WAIT=1",)))
    (found,) = kinds(serialized, tf.WGMMA_SERIALIZED)
    source = open(RESCALED).read().splitlines()
    assert "warpgroup_mma(" in source[found.line - 1]
    assert "reading accumulator registers" in found.evidence
    assert "8 of 8 HGMMA end a wgmma group" in found.evidence
    assert "warpgroup_mma_wait(0)" in found.suggestion
    assert any("wgmma.mma_async instructions are serialized" in w for w in serialized.compilation.resources.warnings)
    # A sweep disassembles later, many cubins at once: its compile carries the same warning.
    (swept,) = finish([compile_undisassembled(make_request(RESCALED, "sm90", constexprs=("WAIT=1",)))])
    assert swept.resources.warnings == serialized.compilation.resources.warnings
    # Waiting with 0 before the rescale keeps them pipelined: no finding, no warning.
    pipelined = explain_compilation(compiled(RESCALED, "sm90", constexprs=("WAIT=0",)))
    assert not kinds(pipelined, tf.WGMMA_SERIALIZED) and not pipelined.compilation.resources.warnings
    # So does the Gluon attention sample, whose rescale waits for every wgmma (issue 29's study).
    assert not kinds(explain_compilation(compiled("sample:fused_attention_gluon", "sm90")), tf.WGMMA_SERIALIZED)


def test_a_wgmma_waited_at_issue_outside_any_loop_is_not_a_finding():
    # The warp-specialized attention waits at issue for block 0's scores before its loop and for
    # the last P·V after it: once per program each. In its loop every wait leaves work in flight.
    c = compiled("sample:fused_attention_gluon", "sm90")
    ops = ttgir.read(c.stages[Stage.TTGIR]).ops
    at_issue = [
        (dot, ops[i + 1])
        for i, dot in enumerate(ops[:-1])
        if dot.name == "ttng.warp_group_dot"
        and ops[i + 1].name == "ttng.warp_group_dot_wait"
        and "pendings = 0" in ops[i + 1].text
    ]
    assert at_issue and all(dot.loop is None for dot, _ in at_issue)
    assert any(op.name == "ttng.warp_group_dot" and op.loop is not None for op in ops)
    assert not kinds(explain_compilation(c), tf.WGMMA_WAIT)


def test_a_gluon_kernels_buffers_are_its_own_allocations_not_num_stages():
    # Gluon pipelines nothing: the 3 K/V buffers are the kernel's BUFFERS, though num_stages is 3 too.
    (shared,) = kinds(explain_compilation(compiled("sample:fused_attention_gluon", "sm90")), tf.SHARED_BUFFERS)
    assert "3x128x128xf16" in shared.evidence and "stages x" not in shared.evidence
    assert "gl.allocate_shared_memory" in shared.suggestion and "num_stages" not in shared.suggestion
    assert not shared.what_if
