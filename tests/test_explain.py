"""`tritonscope explain`: cost per Python line and findings, on real compiles of the samples."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import KERNELS, compiled, make_request

from tritonscope.analysis import cost, findings, instruction_mix, trip_counts, ttgir
from tritonscope.app.explain import explain, explain_compilation
from tritonscope.core.samples import sample_path
from tritonscope.core.stages import Stage
from tritonscope.parsers import life_ranges, sass_lines
from tritonscope.render.terminal.base import Terminal
from tritonscope.render.terminal.explain import ExplainView

VECTOR_ADD = sample_path("vector_add")
MATMUL = sample_path("matmul")
BIG_TILES = ("BLOCK_SIZE_M=256", "BLOCK_SIZE_N=256", "BLOCK_SIZE_K=128")


def line_of(path: Path, text: str) -> int:
    """The line number of a statement in a sample, found rather than assumed."""
    return next(n for n, code in enumerate(path.read_text().splitlines(), start=1) if code.strip() == text)


X_LOAD = line_of(VECTOR_ADD, "x = tl.load(x_ptr + offsets, mask=mask)")
_TRITON = tuple(int(p) for p in __import__("importlib.metadata").metadata.version("triton").split(".")[:2])
DOT = line_of(MATMUL, "accumulator = tl.dot(a, b, accumulator)")


def of_kind(result, kind: str) -> list:
    return [f for f in result.findings if f.kind == kind]


def test_the_narrow_load_is_found_on_its_line_with_the_divisibility_cause():
    result = explain(make_request("sample:vector_add", "sm90", args=["n_elements=4099"]))
    assert X_LOAD == 21
    narrow = {f.line: f for f in of_kind(result, findings.NARROW)}
    load = narrow[X_LOAD]
    assert "32 bits per thread, not 128" in load.message
    assert "n_elements=4099 is not a multiple of 16" in load.message and "mask" in load.message
    assert "8 x 32-bit" in load.evidence and "tt.load of 1024xf32" in load.evidence
    # The suggestion is compiled: with a multiple of 16 the same line loads 128 bits per thread.
    assert load.what_if == (("arg", "n_elements", 4112),)
    assert load.verified.startswith("-a n_elements=4112:") and f"line {X_LOAD}: 2 x 128-bit" in load.verified
    line = next(c for c in result.lines if c.line == X_LOAD)
    assert line.code.strip() == "x = tl.load(x_ptr + offsets, mask=mask)"
    assert line.instructions.global_loads == {32: 8}


def test_a_multiple_of_16_has_no_narrow_access():
    result = explain_compilation(compiled("sample:vector_add", "sm90", args=("n_elements=4096",)))
    assert not of_kind(result, findings.NARROW)
    line = next(c for c in result.lines if c.line == X_LOAD)
    assert line.instructions.global_loads == {128: 2}


def test_a_misaligned_row_stride_is_named_for_the_pointer():
    result = explain_compilation(compiled("sample:softmax", "sm90"))
    load = of_kind(result, findings.NARROW)[0]
    assert "input_row_stride=781 is not a multiple of 16" in load.message and "16-byte aligned" in load.message
    assert "n_cols=781" in load.message
    assert load.what_if == (("arg", "input_row_stride", 784), ("arg", "n_cols", 784))


def test_spills_at_the_most_warps_a_block_takes_are_not_told_to_double_them():
    """At 32 warps (1024 threads) the advice was num_warps=64, 2048 threads, which no launch takes."""
    c = compiled("sample:softmax", "sm90", constexprs=("BLOCK_SIZE=131072",), num_warps=32)
    (spill,) = of_kind(explain_compilation(c), findings.SPILLS)
    assert "num_warps=64" not in spill.suggestion and spill.what_if == ()
    assert spill.suggestion.startswith("make the BLOCK sizes smaller")


def test_spills_that_twice_the_warps_do_not_lessen_are_not_told_to_double_them():
    """Doubling the warps was advised whatever its what-if showed: 168 spills became 462 (or ptxas refused
    the tile at 128 registers a thread), and the advice stood (h24a)."""
    tiles = ("BLOCK_SIZE_M=256", "BLOCK_SIZE_N=256", "BLOCK_SIZE_K=32")
    result = explain(make_request("sample:matmul", "sm80", constexprs=tiles, num_warps=8))
    (spill,) = of_kind(result, findings.SPILLS)
    assert spill.what_if == (("option", "num_warps", 16),) and spill.verified.startswith("--num-warps 16:")
    spilled = result.compilation.resources.spills
    assert spill.suggestion.startswith("make the BLOCK sizes smaller: more warps do not help (compiled below, the ")
    assert "spills are" in spill.suggestion and f"against {spilled})" in spill.suggestion, spill.suggestion
    assert "num_warps=16" not in spill.suggestion


def test_a_narrow_access_widened_at_an_occupancy_cost_says_the_cost():
    """A bias of 128 fp16 over 128 threads: fewer warps widen its load (16 to 32 bits) but take the kernel
    from 62.5% to 37.5% occupancy, and that was advised without a word of it (h24a)."""
    kernel = KERNELS / "bias_gelu.py"
    bias = line_of(kernel, "b = tl.load(b_ptr + rn, mask=col_mask, other=0.0).to(tl.float32)")
    result = explain(make_request(str(kernel), "sm90"))
    narrow = {f.line: f for f in of_kind(result, findings.NARROW)}[bias]
    before = result.compilation.resources.occupancy.percent
    assert narrow.what_if == (("option", "num_warps", 2),) and "occupancy 37.5%" in narrow.verified
    assert f"the kernel's occupancy falls from {before:g}% to 37.5%" in narrow.suggestion, narrow.suggestion


def test_spills_name_the_lines_whose_code_spills():
    c = compiled("sample:matmul", "sm80", maxnreg=64)
    stack, stored = c.resources.stack_bytes, c.resources.spill_store_bytes  # 760 and 1012 B with Triton 3.6
    assert stack > 0 and stored > 0
    result = explain_compilation(c)
    (spill,) = of_kind(result, findings.SPILLS)
    local = {x.line: x.instructions.local_loads + x.instructions.local_stores for x in result.lines}
    assert spill.line == max(local, key=local.get) == DOT
    assert set(spill.lines) == {line for line, n in local.items() if n}
    assert f"{stack} B of local memory" in spill.evidence and f"{stored} B stored" in spill.evidence
    assert "--maxnreg 64" in spill.suggestion and spill.what_if == (("option", "maxnreg", None),)


def test_a_stack_frame_of_local_arrays_is_no_spill():
    """sin and cos keep a local array for their slow argument reduction: a 32-byte stack frame that the
    driver's local size (and Triton's n_spills) counts, but ptxas spills no register: 0 spills, no
    spills finding (it blamed 49% of the time on them), the warning says local arrays."""
    c = compiled(str(KERNELS / "sin_cos.py"), "sm90", constexprs=("BLOCK=1024",), args=("n=4096",))
    assert c.resources.stack_bytes > 0 and c.resources.spill_store_bytes == c.resources.spill_load_bytes == 0
    assert c.resources.spills == 0
    assert any("local arrays: ptxas spills no register" in w for w in c.resources.warnings)
    assert not of_kind(explain_compilation(c), findings.SPILLS)


def test_tiles_too_big_for_shared_memory_are_found_and_the_fewer_stages_checked():
    request = make_request("sample:matmul", "sm80", constexprs=BIG_TILES, num_stages=3)
    result = explain(request)
    (over,) = of_kind(result, findings.SHARED_LIMIT)
    assert "needs 256 KiB" in over.message and "allows 163 KiB" in over.message and "launch will fail" in over.message
    assert over.line == line_of(MATMUL, "a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)")
    assert "2x256x128xf16 = 128 KiB" in over.evidence
    assert over.what_if == (("option", "num_stages", 2),)
    assert over.verified.startswith("--num-stages 2:") and over.verified.endswith("; fits")


def test_only_the_dot_line_carries_matrix_instructions():
    for target in ("sm80", "sm90"):
        costs = cost.line_costs(compiled("sample:matmul", target))
        matrix = {c.line: c.instructions.matrix for c in costs if c.instructions.matrix}
        assert list(matrix) == [DOT], (target, matrix)
        whole = instruction_mix.count(Stage.SASS, compiled("sample:matmul", target).stages[Stage.SASS])
        assert matrix[DOT] == whole.matrix


def test_atomics_are_counted_on_their_line_and_their_waits_named_as_atomics():
    """The atomics were no kind of the mix: no row in dump, no figure under their line, and a wait on an
    atomic's old value was said "waits on the loads of line 8 (global load)"."""
    ticket = KERNELS / "atomic_ticket.py"
    atomic = line_of(ticket, "ticket = tl.atomic_add(counter_ptr + offsets % 4, 1)")
    counted = {}
    for target in ("sm90", "gfx942"):
        c = compiled(str(ticket), target)
        per_line = {x.line: x.instructions.atomics for x in cost.line_costs(c) if x.instructions.atomics}
        assert list(per_line) == [atomic], (target, per_line)
        machine = c.variant.target_info.vendor.machine_code
        assert instruction_mix.count(machine, c.stages[machine]).atomics == per_line[atomic] > 0
        counted[target] = per_line[atomic]
    text = ExplainView(Terminal(width=80)).render(explain(make_request(str(ticket), "sm90")))
    assert f"↳ atomics {counted['sm90']}\n" in text
    assert f"waits on line {atomic} (atomic): " in text and "global load" not in text


def test_the_sass_names_lines_of_the_ptx_shown():
    """ptxas gets the PTX with one .loc per inline-asm block (since 3.8 LLVM writes one per asm line), so
    nvdisasm's -gp lines count another text; the SASS shown names the lines of the PTX shown: each HMMA
    comes from an mma.sync line (before the fix, from 3.8 on, they named the loads' lines)."""
    c = compiled("sample:matmul", "sm80")
    ptx, sass = c.stages[Stage.PTX].splitlines(), c.stages[Stage.SASS].splitlines()
    pointers = sass_lines.ptx_lines(c.stages[Stage.SASS])
    hmma = [n for n in pointers if "HMMA" in sass[n - 1]]
    assert len(hmma) == 64 and all("mma.sync" in ptx[pointers[n] - 1] for n in hmma)


def test_each_warp_group_chain_of_attention_stays_with_its_own_dot():
    c = compiled("sample:fused_attention", "sm90")
    per_line = {x.line: x.instructions.matrix for x in cost.line_costs(c) if x.instructions.matrix}
    source = Path(c.kernel.file)
    qk, pv = line_of(source, "qk = tl.dot(q, k)"), line_of(source, "acc = tl.dot(p.to(v.dtype), v, acc)")
    helper_lines = {line for line in per_line if line < c.kernel.first_line}
    assert helper_lines == {qk, pv} and per_line[qk] == per_line[pv] == 8


def test_a_dot_that_falls_back_to_fma_and_one_without_wgmma():
    fma = explain_compilation(compiled(str(KERNELS / "dot_ieee.py"), "sm80"))
    (finding,) = of_kind(fma, findings.MATRIX)
    assert "FMA units" in finding.message and "input_precision='ieee'" in finding.message
    assert "#ttg.blocked" in finding.evidence and "0 matrix instructions" in finding.evidence
    small = ("BLOCK_SIZE_M=64", "BLOCK_SIZE_N=64", "BLOCK_SIZE_K=32")
    v2 = explain_compilation(compiled("sample:matmul", "sm90", constexprs=small, num_warps=2))
    (finding,) = of_kind(v2, findings.MATRIX)
    assert finding.line == DOT and "mma.sync (HMMA)" in finding.message and "num_warps=2" in finding.message


def test_the_epilogue_conversion_is_counted_with_its_bytes():
    result = explain_compilation(compiled("sample:matmul", "sm80"))
    (conversion,) = of_kind(result, findings.CONVERSION)
    store = line_of(MATMUL, "tl.store(c_ptrs, c, mask=c_mask)")
    assert conversion.line == store and "#mma -> #blocked moves 32 KiB" in conversion.message
    line = next(x for x in result.lines if x.line == store)
    assert line.shared_conversion_bytes == 128 * 128 * 2 and line.conversions[0].through_shared


def test_a_conversion_of_pointers_moves_their_64_bit_addresses():
    """A histogram's atomic addresses (tensor<1024x!tt.ptr<i32>>) were counted at the pointee's 4 bytes:
    "4 KiB, convert_layout of 1024xi32", where Triton's metadata has 8 KiB of shared memory (h26a)."""
    c = compiled(str(KERNELS / "histogram.py"), "sm90")
    result = explain_compilation(c)
    (conversion,) = of_kind(result, findings.CONVERSION)
    assert "moves 8 KiB through shared memory" in conversion.message, conversion.message
    assert "ttg.convert_layout of 1024xptr<i32>" in conversion.evidence
    (moved,) = [x for line in result.lines for x in line.conversions]
    assert moved.bytes == 1024 * 8 == c.metadata["shared"]  # Triton's own figure


def test_an_atomic_at_its_default_ordering_is_found_fenced_and_relaxed_is_not(tmp_path):
    """A histogram's tl.atomic_add at sem='acq_rel' (its default): ptxas fences each of its 8 atomics a
    thread with a MEMBAR, which sem='relaxed' drops (8 REDs, no MEMBAR); nothing said of it (h26a)."""
    (fenced,) = of_kind(explain_compilation(compiled(str(KERNELS / "histogram.py"), "sm90")), findings.ATOMIC_FENCES)
    line = line_of(KERNELS / "histogram.py", "tl.atomic_add(bins_ptr + (v & (NUM_BINS - 1)), 1, mask=mask)")
    assert fenced.line == line and "8 fences (MEMBAR) for its 8 atomics per thread" in fenced.message
    assert fenced.evidence == f"SASS on line {line}: 8 atomics, 8 MEMBARs" and "sem='relaxed'" in fenced.suggestion
    relaxed = tmp_path / "relaxed.py"
    relaxed.write_text((KERNELS / "histogram.py").read_text().replace("1, mask=mask)", "1, mask=mask, sem='relaxed')"))
    c = compiled(str(relaxed), "sm90")
    assert "MEMBAR" not in c.stages[Stage.SASS] and "REDG" in c.stages[Stage.SASS]  # what the advice promises
    assert not of_kind(explain_compilation(c), findings.ATOMIC_FENCES)


def test_the_reserved_kib_an_sm90_cubin_carries_is_counted_once_and_no_loop_gets_no_num_stages():
    """A 64x64 fp32 transpose (16 KiB of conversion scratch): 12 blocks per H200 SM, where the driver's
    occupancy query there gives 13 (its cubin's static 1 KiB is the reserved KiB, counted twice); and
    "try num_stages=2" for a kernel with no loop, whose own what-if compiled the same code (h26a)."""
    sm90, sm80 = (compiled(str(KERNELS / "transpose_tile.py"), t) for t in ("sm90", "sm80"))
    assert sm90.resources.shared_bytes == 16384 + 1024 and sm90.resources.reserved_in_shared
    assert sm90.resources.occupancy.blocks_per_sm == 13  # 233,472 B // 17,408 (the H200's driver: 13)
    assert sm80.resources.shared_bytes == 16384 and not sm80.resources.reserved_in_shared
    assert sm80.resources.occupancy.blocks_per_sm == 9  # 167,936 B // (16,384 + 1,024 reserved)
    # a kernel of no shared memory carries the reserved section with a static size of 0: nothing to take off
    empty = compiled("sample:row_sum_gluon", "sm90").resources
    assert empty.shared_bytes == empty.launch_shared_bytes == 0 and not empty.reserved_in_shared
    (occupancy,) = of_kind(explain_compilation(sm90), findings.OCCUPANCY)
    assert "limited by shared memory" in occupancy.message and "num_stages" not in occupancy.suggestion
    assert "scratch of a layout conversion" in occupancy.suggestion and not occupancy.what_if
    assert "none: it is scratch" in occupancy.evidence


def test_loops_without_a_dot_are_not_pipelined_and_occupancy_has_a_next_step():
    result = explain_compilation(compiled("sample:layernorm", "sm90", args=("N=65536", "stride=65536")))
    loops = of_kind(result, findings.NOT_PIPELINED)
    assert len(loops) == 3 and all("tl.range" in f.suggestion for f in loops)
    (occupancy,) = of_kind(result, findings.OCCUPANCY)
    assert "limited by registers" in occupancy.message and "--maxnreg 48" in occupancy.suggestion
    assert not of_kind(explain_compilation(compiled("sample:matmul", "sm80")), findings.NOT_PIPELINED)


def test_a_loop_that_runs_once_is_not_told_to_pipeline():
    """The layer norm sample's rows of 8192 in blocks of 8192 (Liger's group_norm alike): its three loops
    run once (the trips said beside the estimate), and were each told to pipeline, which overlaps nothing."""
    c = compiled("sample:layernorm", "sm90")
    assert set(trip_counts.loop_trips(c).values()) == {1}
    assert not of_kind(explain_compilation(c), findings.NOT_PIPELINED)


def test_registers_live_are_read_per_line():
    # Blackwell cubins are CUDA 13's ELF on every release, which every bundled nvdisasm analyzes.
    result = explain_compilation(compiled("sample:matmul", "sm100"))
    assert result.live_registers and not result.notes
    live = {x.line: x.live_registers for x in result.lines if x.live_registers}
    assert max(live.values()) <= compiled("sample:matmul", "sm100").resources.registers
    assert live[DOT] > 60 and min(live.values()) < 20


def test_registers_live_on_ampere_on_every_release():
    """From 3.7 Triton carries nvdisasm 13, which analyzes no cubin of ptxas 12 (what it runs for sm80):
    the life ranges are read off the PTX assembled again by its CUDA 13 ptxas, whose listing is the
    same instructions at the same addresses. Under 3.6, its nvdisasm 12.8 reads the cubin itself."""
    result = explain_compilation(compiled("sample:matmul", "sm80"))
    assert result.live_registers and not result.notes
    live = {x.line: x.live_registers for x in result.lines if x.live_registers}
    assert max(live.values()) <= compiled("sample:matmul", "sm80").resources.registers
    assert live[DOT] > 100 and min(live.values()) < 20
    shown = " ".join(ExplainView(Terminal(width=100)).render(result).split())
    assert "regs source" in shown and f" {live[DOT]} accumulator = tl.dot(" in shown


def test_registers_live_per_line_not_shown_says_nvdisasms_own_reason():
    """matmul_autotune's first config takes all 255 registers, which every nvdisasm refuses to analyze
    ("Invalid register count"): on 3.7 and later too, the PTX assembled again for nvdisasm 13 gives
    that reason, not a format's and no advice to install an nvdisasm that would refuse it the same."""
    result = explain_compilation(compiled("sample:matmul_autotune", "sm80"))
    (note,) = result.notes
    assert not result.live_registers and "Invalid register count : '255'" in note
    assert "ELF format" not in note and "TRITON_NVDISASM_PATH" not in note


def test_life_ranges_are_read_by_address():
    text = (
        "        /*0000*/                   MOV R1, c[0x0][0x28] ;     // |   1   ^      |   |\n"
        "        /*0010*/                   S2R R0, SR_TID.X ;         // |   2 ^ :      |   |\n"
        "        .section .text\n"
    )
    assert life_ranges.parse(text) == {0: 1, 16: 2}
    # Compared with another listing of the same code: spacing, comments and the end's padding aside.
    padded = "  /*0000*/  MOV R1, c[0x0][0x28] ;  /* x */\n  /*0010*/ S2R  R0, SR_TID.X ;\n  /*0020*/  NOP ;\n"
    assert (
        life_ranges.instructions(text)
        == life_ranges.instructions(padded)
        == [(0, "MOV R1, c[0x0][0x28]"), (16, "S2R R0, SR_TID.X")]
    )
    listing = '  //## File "k.py", line 3\n        /*0010*/   S2R R0, SR_TID.X ;\n'
    assert life_ranges.by_listing_line(listing, {0: 1, 16: 2}) == {2: 2}


def test_terminal_view_shows_the_source_gutter_and_findings():
    result = explain_compilation(compiled("sample:vector_add", "sm90", args=("n_elements=4099",)))
    text = ExplainView(Terminal(width=80)).render(result)
    assert all(len(line) <= 80 for line in text.splitlines())
    row = next(line for line in text.splitlines() if "x = tl.load(x_ptr + offsets" in line)
    assert row.split()[0] == str(X_LOAD) and row.split()[1] == "16"
    assert "↳ global ld 8x32b" in text
    # the two loads and the store say the same: one entry naming their lines
    assert "3 findings" in text and f"lines {X_LOAD}-{X_LOAD + 1}, {X_LOAD + 3}: narrow-global-access" in text


def test_cli_json_document(cli):
    out = cli("explain", "sample:vector_add", "-a", "n_elements=4099", "--target", "sm90", "--json", "--no-what-if")
    document = json.loads(out.stdout)
    assert document["kind"] == "explain" and document["schema"] >= 2
    line = next(entry for entry in document["lines"] if entry["line"] == X_LOAD)
    assert line["instructions"]["global_loads"] == {"32": 8} and line["instructions"]["matrix"] == 0
    assert set(line["instructions"]) >= {"total", "global_stores", "shared_loads", "barriers", "local_loads", "tma"}
    kinds = {(f["kind"], f["line"]) for f in document["findings"]}
    assert (findings.NARROW, X_LOAD) in kinds
    assert set(document["findings"][0]) >= {"kind", "line", "message", "evidence", "suggestion"}


def test_unspecialized_arguments_are_named_as_such_and_specializing_is_compiled():
    result = explain(make_request("sample:matmul", "sm80", specialize=False))
    a_load = line_of(MATMUL, "a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)")
    narrow = {f.line: f for f in of_kind(result, findings.NARROW)}[a_load]
    assert "M=4096 is a multiple of 16 but has no hint under --no-specialize" in narrow.message
    assert "stride_ak=1 is not specialized to the constant 1" in narrow.message
    assert "not a multiple" not in narrow.message
    assert narrow.what_if == (("option", "specialize", True),)
    assert f"line {a_load}: 12 x 128-bit" in narrow.verified
    uncoalesced = {f.line: f for f in of_kind(result, findings.UNCOALESCED)}[a_load]
    assert uncoalesced.message.startswith("stride_ak is 1 at launch but not specialized")


def test_amd_buffer_loads_are_traced_too():
    result = explain_compilation(compiled("sample:vector_add", "gfx942", args=("n_elements=4099",)))
    load = {f.line: f for f in of_kind(result, findings.NARROW)}[X_LOAD]
    assert "n_elements=4099 is not a multiple of 16" in load.message
    # AMD buffer loads are on by default since 3.6 (knobs.amd.use_buffer_ops); since 3.9 TTGIR types
    # them `!tt.ptr<f32> -> tensor<1024xf32, ...>`.
    op = "amdg.buffer_load" if _TRITON >= (3, 6) else "tt.load"
    assert "AMDGCN on line 21: 4 x 32-bit" in load.evidence and f"{op} of 1024xf32" in load.evidence
    matmul = cost.line_costs(compiled("sample:matmul", "gfx942"))
    assert [c.line for c in matmul if c.instructions.matrix] == [DOT]


def test_a_what_if_that_compiles_to_the_same_code_says_its_change_did_not_reach_it():
    """Liger's cross-entropy: explain suggested num_stages=2 against its shared memory, compiled it, and
    said the same 129 KiB without a word: its loop sets its own `tl.range(..., num_stages=3)`."""
    from conftest import KERNELS, compiled, make_request

    from tritonscope.app.explain import _unchanged

    kernel = str(KERNELS / "loop_stages.py")
    three, two = compiled(kernel, num_stages=3), compiled(kernel, num_stages=2)
    assert make_request(kernel, num_stages=2).num_stages == 2
    said = _unchanged((("option", "num_stages", 2),), two, three)
    assert said.startswith("; the same code as before: the change does not reach it")
    assert "a loop's own `tl.range(0, n_cols, BLOCK, num_stages=3)` outranks the kernel's num_stages" in said
    assert _unchanged((("option", "num_warps", 8),), compiled(kernel, num_warps=8), three) == ""


def test_the_file_between_a_helper_and_the_kernel_is_one_row(cli, tmp_path):
    """attorch's linear kernel calls a helper 800 lines above it: explain printed every line between,
    other functions of the file, blank gutters."""
    unrelated = "".join(f"def unused_{n}(x):\n    return x + {n}\n\n" for n in range(40))
    file = tmp_path / "far.py"
    file.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef helper(x):\n    return x * 3\n\n\n"
        + unrelated
        + "@triton.jit\ndef far_kernel(x_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n    tl.store(x_ptr + offs, helper(tl.load(x_ptr + offs)))\n"
    )
    out = cli("explain", file, "-c", "BLOCK=128", "-a", "x_ptr=*fp32", "-t", "sm90", "--no-what-if").stdout
    assert "return x * 3" in out and "def far_kernel" in out and "unused_" not in out
    assert any(line.strip() == "⋮" for line in out.splitlines())


def test_findings_that_say_the_same_on_several_lines_are_shown_once(tmp_path):
    """unsloth's RoPE had ten narrow-access findings of one text, one per load and store: shown once,
    with their lines and their shares together; the JSON keeps each."""
    kernel = tmp_path / "halves.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def halves(x_ptr, y_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    a = tl.load(x_ptr + offs)\n"
        "    b = tl.load(x_ptr + BLOCK + offs)\n"
        "    tl.store(y_ptr + offs, a * b)\n"
    )
    result = explain(make_request(str(kernel), "sm90", constexprs=["BLOCK=64"], args=["x_ptr=*bf16", "y_ptr=*bf16"]))
    narrow = of_kind(result, findings.NARROW)
    assert sorted(f.line for f in narrow) == [8, 9, 10] and len({f.message for f in narrow}) == 1
    text = ExplainView(Terminal(width=80)).render(result)
    assert "● lines 8-10: narrow-global-access (" in text and text.count("narrow-global-access") == 1
    assert "evidence (line 8; the others alike: --json gives each): SASS on line 8" in " ".join(text.split())
    assert "(TTGIR line " in text  # the TTGIR op's line, told apart from the Python lines around it


def test_loads_no_dot_reads_are_not_said_to_be_narrower_than_32_bits():
    """DeepSeek-V3's fp8 GEMM: its scales (32-bit loads) multiply the dot's result, and were said to be
    skipped for being "narrower than 32 bits per thread", with the advice to widen them."""
    result = explain(make_request(str(KERNELS / "scaled_dot_loop.py"), "sm90"))
    (found,) = of_kind(result, findings.NOT_PIPELINED)
    assert "no tl.dot reads these" in found.message and "narrower than 32" not in found.message
    assert "nothing to widen" in found.suggestion and found.line == 17


def test_a_drain_charged_to_a_line_of_no_store_names_the_stores_that_drain():
    """The drain sits on the instruction after EXIT, as a profiler samples it: in flash-attention's layer
    norm an `if HAS_W1:` (a constexpr False) read as 21% of the time, `stores drain after EXIT`."""
    result = explain(make_request(str(KERNELS / "store_then_branch.py"), "sm90"))
    path = KERNELS / "store_then_branch.py"
    branch = line_of(path, "if head < m:")
    stores = [line_of(path, text) for text in ("tl.store(y_ptr + offs, x * 2, mask=offs < n)",
                                               "tl.store(y_ptr + n + offs, z * 3, mask=offs < n)")]  # fmt: skip
    drained = next(t for t in result.time.lines if t.drain)
    assert drained.line == branch and list(drained.drained) == stores
    text = " ".join(ExplainView(Terminal(width=80)).render(result).split())
    assert f"the stores of lines {stores[0]}, {stores[1]} drain after EXIT (sampled here)" in text


def test_a_sliced_layouts_width_is_the_cause_not_a_divisor_of_the_program_id():
    """mamba's chunk state: loads of 32xf32 in `#ttg.slice<{dim = 1, parent = #blocked}>` (one element a
    thread) were said narrow because `batch=2 is not a multiple of 16`, batch dividing the program id."""
    result = explain(make_request(str(KERNELS / "sliced_scale.py"), "sm90"))
    (found,) = of_kind(result, findings.NARROW)
    assert "each thread holds only 1 contiguous f32" in found.message and "n=2" not in found.message


def test_a_conversion_for_a_narrow_store_names_the_hint_that_removes_it():
    """FlagGems' rms_norm at N=2900: the store's layout is narrow for want of a hint on its stride, and
    the values are converted to it through shared memory; that round trip was "usually worth it" while
    the narrow access's own hint removes it. The conversion names it, and its what-if shows it gone."""
    kernel = str(KERNELS / "narrow_store_conversion.py")
    sizes = ("x_stride=2912", "y_stride=2900", "N=2900", "x_ptr=*fp16", "y_ptr=*fp16", "w_ptr=*fp16")
    result = explain(make_request(kernel, "sm90", constexprs=("BLOCK=4096",), args=sizes))
    store = line_of(Path(kernel), "tl.store(y_ptr + row * y_stride + cols, y, mask=mask)")
    (conversion,) = of_kind(result, findings.CONVERSION)
    narrow = {f.line: f for f in of_kind(result, findings.NARROW)}[store]
    assert conversion.line == store and conversion.what_if == narrow.what_if
    assert ("arg", "y_stride", 2912) in conversion.what_if
    assert "for this line's narrow access" in conversion.suggestion and "usually worth it" not in conversion.suggestion
    assert conversion.verified.endswith(f"line {store}: no layout conversion through shared memory")


def test_a_stride_of_the_last_dimension_given_no_value_is_tried_at_1():
    """vLLM's fused MoE run as a first user runs it (no strides): the what-if gave every stride 16,
    which keeps each thread's elements apart, and said nothing the advice named helps. The stride
    of the tile's last dimension is tried at 1 (a contiguous tensor's), and the access widens."""
    kernel = str(KERNELS / "strides_not_given.py")
    result = explain(make_request(kernel, "sm90", constexprs=("BM=64", "BK=64"), dtype="fp16"))
    load = line_of(Path(kernel), "a = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak)")
    narrow = {f.line: f for f in of_kind(result, findings.NARROW)}[load]
    assert ("arg", "stride_ak", 1) in narrow.what_if and ("arg", "stride_am", 16) in narrow.what_if
    assert "stride_ak was not given" in narrow.message and "a stride of the tile's last dimension" in narrow.message
    assert "the accesses widen to 128 bits" in narrow.verified and "none that the what-if" not in narrow.suggestion


def test_a_tile_of_gathered_rows_is_no_tma_candidate_on_hopper():
    """vLLM's MoE A tile (token rows at loaded indices) was told to load through a tensor descriptor,
    which cannot copy it on sm90; on sm100 a descriptor's gather can, and is named."""
    kernel = str(KERNELS / "gathered_rows_matmul.py")
    path = Path(kernel)
    a_line = line_of(path, "a = tl.load(a_ptr + rows[:, None] * K + (k + offs_k)[None, :])")
    b_line = line_of(path, "b = tl.load(b_ptr + (k + offs_k)[:, None] * BN + offs_n[None, :])")
    flags = {"constexprs": ("BM=64", "BN=64", "BK=32"), "args": ("idx_ptr=*i32", "K=4096"), "dtype": "fp16"}
    hopper = {f.line: f for f in of_kind(explain(make_request(kernel, "sm90", **flags), what_if=False), findings.TMA)}
    assert set(hopper) == {b_line}, hopper
    blackwell = {
        f.line: f for f in of_kind(explain(make_request(kernel, "sm100", **flags), what_if=False), findings.TMA)
    }
    assert "desc.gather(rows, col)" in blackwell[a_line].suggestion and "gather" not in blackwell[b_line].suggestion


def test_a_loops_own_constexpr_stages_are_the_knob_the_advice_names():
    """Triton's block-scaled matmul tutorial: its K loop takes num_stages from a constexpr; the advice
    said `num_stages=2: about 217 KiB` (the option does not reach the loop: the same code) where the
    constexpr at 2 gives 109 KiB."""
    kernel = str(KERNELS / "loop_stages_constexpr.py")
    flags = {"constexprs": ("BM=128", "BN=128", "BK=64", "STAGES=6"), "args": ("K=4096",), "dtype": "fp16"}
    result = explain(make_request(kernel, "sm90", **flags))
    (buffers,) = of_kind(result, findings.SHARED_BUFFERS)
    assert buffers.suggestion.startswith("STAGES=5 (the loop's own num_stages): about ")
    assert buffers.what_if == (("constexpr", "STAGES", 5),)
    assert buffers.verified.startswith("-c STAGES=5: ") and "the same code as before" not in buffers.verified


def test_a_loops_own_written_stages_are_the_knob_the_advice_names(tmp_path):
    """`tl.range(..., num_stages=3)`: the advice offered num_stages=4, 3 and 2, each "about 193 KiB" (the
    option does not reach the loop), its what-if "the same code as before" (h24a). It names the loop's
    own number, at its line, and compiles nothing (an edit of the file)."""
    source = (KERNELS / "loop_stages_constexpr.py").read_text().replace("num_stages=STAGES", "num_stages=3")
    kernel = tmp_path / "loop_stages_written.py"
    kernel.write_text(source)
    loop = line_of(kernel, "for k in tl.range(0, tl.cdiv(K, BK), num_stages=3):")
    flags = {"constexprs": ("BM=128", "BN=256", "BK=64", "STAGES=1"), "args": ("K=4096",), "dtype": "fp16"}
    result = explain(make_request(str(kernel), "sm90", num_stages=5, **flags))
    (buffers,) = of_kind(result, findings.SHARED_BUFFERS)
    said = f"num_stages=2 in the loop's own tl.range (line {loop}; the option does not reach it): about 97 KiB"
    assert buffers.suggestion.startswith(said), buffers.suggestion
    assert "num_stages=4" not in buffers.suggestion and buffers.what_if == () and not buffers.verified


def test_a_persistent_kernels_epilogue_conversion_is_once_per_tile():
    """Triton's tutorial 09 without flatten: the epilogue's conversion sits in the tile loop, a K loop
    inside it; it was said to run "in every loop iteration", to be converted "before the loop"."""
    kernel = str(KERNELS / "persistent_epilogue.py")
    flags = {"constexprs": ("BM=128", "BN=128", "BK=64"), "args": ("tiles=1024", "K=4096"), "dtype": "fp16"}
    (conversion,) = of_kind(explain(make_request(kernel, "sm90", **flags), what_if=False), findings.CONVERSION)
    assert "in every loop iteration" not in conversion.message
    assert conversion.suggestion.startswith("once per tile (an epilogue before a store)")


def test_a_scalars_load_is_no_narrow_access_nor_a_tma_candidate():
    """fla's `b_g_last = tl.load(g + ...)`, one element: told to widen to 128 bits with a larger BLOCK, and
    (copied with cp.async into a dot's pipeline) to load it through a TMA descriptor, whose box is 16
    bytes wide at least. The tiles beside it are still found."""
    from tritonscope.analysis.findings.target import _row_bytes

    c = compiled(str(KERNELS / "scalar_in_dot_loop.py"), "sm90", constexprs=("BLOCK=64",),
                 args=("K=4096", "a_ptr=*bf16", "b_ptr=*bf16", "g_ptr=*fp32", "c_ptr=*fp32"))  # fmt: skip
    gate = next(n for n, text in enumerate(c.kernel.source.splitlines(), c.kernel.first_line) if "g = tl.load" in text)
    result = explain_compilation(c)
    assert not [f for f in of_kind(result, findings.NARROW) if f.line == gate]
    assert len(of_kind(result, findings.TMA)) == 2  # the a and b tiles
    copy = "%c = ttg.async_copy_global_to_local %p, %buf : tensor<1x!tt.ptr<f32>, #blocked> -> !ttg.memdesc<1xf32>"
    assert _row_bytes(ttgir.Op(1, "ttg.async_copy_global_to_local", (), (), copy)) == 4


def test_the_view_written_to_a_file_keeps_no_line_padded_to_the_width():
    """Rich pads the lines it wraps and a table's rows to the width: explain piped to a file had 178
    lines ending in spaces (h20a). Written to a file, each line ends where its text does."""
    import io

    result = explain(make_request("sample:fused_attention", target="sm90"))
    written = io.StringIO()
    ExplainView(Terminal(width=80)).write(result, written)
    lines = written.getvalue().splitlines()
    assert len(lines) > 60 and not [line for line in lines if line.endswith(" ")]
    assert written.getvalue() == ExplainView(Terminal(width=80)).render(result)
