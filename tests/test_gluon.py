"""Gluon kernels (`@gluon.jit`) compiled with the real Triton on their targets: the stages a Gluon
kernel has (no TTIR; GLIR from Triton 3.9), the layouts their authors wrote kept in TTGIR, shared
memory, TMA with mbarriers, warpgroup MMA (sm90), tcgen05 MMA in tensor memory (sm100) and warp
specialization; and every command run on one."""

from __future__ import annotations

import json

import pytest
from conftest import KERNELS, compiled

from tritonscope.core.stages import Language, Stage
from tritonscope.triton_api.version import installed, release_tuple

GLUON = KERNELS / "gluon"
HOPPER = str(GLUON / "hopper.py")
FP16_64 = "tensordesc<fp16[64, 64]>"


def _lines(c, stage: Stage, text: str) -> list[int]:
    """The Python lines the stage's lines holding `text` come from."""
    return sorted(
        {
            py
            for n, line in enumerate(c.stages[stage].splitlines(), 1)
            if text in line
            for _, py in c.line_map[stage].get(n, ())
        }
    )


def _source_line(path, text: str) -> int:
    return next(n for n, line in enumerate(open(path).read().splitlines(), 1) if text in line)


def test_gluon_kernel_starts_at_ttgir_with_its_own_layouts():
    c = compiled(str(GLUON / "layouts_basic.py"), "sm90", kernel="row_sum", constexprs=("ROWS=16", "COLS=64"))
    assert c.kernel.language is Language.GLUON
    assert Stage.TTIR not in c.stages and Stage.TTGIR in c.stages and Stage.SASS in c.stages
    assert (Stage.GLIR in c.stages) == (release_tuple(installed()) >= (3, 9))
    # The layout written on the source line is the one TTGIR carries.
    assert (
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]" in c.stages[Stage.TTGIR]
    )
    assert "#ttg.slice<{dim = 1" in c.stages[Stage.TTGIR]
    total = _source_line(GLUON / "layouts_basic.py", "total = gl.sum")
    assert total in _lines(c, Stage.TTGIR, "tt.reduce")


def test_gluon_helper_lines_map_to_their_call_site():
    c = compiled(
        str(GLUON / "layouts_basic.py"), "sm90", kernel="scaled_copy", args=("factor=2.0",), constexprs=("BLOCK=512",)
    )
    helper = _source_line(GLUON / "layouts_basic.py", "return x * factor")
    call = _source_line(GLUON / "layouts_basic.py", "offsets, _scale(x, factor)")
    mapped = _lines(c, Stage.TTGIR, "arith.mulf")
    assert helper in mapped and call in mapped


def test_shared_memory_through_allocate_store_load():
    c = compiled(str(GLUON / "shared_memory.py"), "sm90", kernel="column_reads_swizzled", constexprs=("BLOCK=64",))
    ttgir = c.stages[Stage.TTGIR]
    assert "#ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 8, order = [1, 0]}>" in ttgir
    assert "ttg.local_alloc" in ttgir and "ttg.local_load" in ttgir
    assert c.resources.shared_bytes >= 64 * 64 * 4
    assert c.resources.instructions.shared_loads > 0


def test_tma_with_mbarriers_on_sm90():
    c = compiled(
        HOPPER,
        "sm90",
        kernel="tma_scale",
        constexprs=("BLOCK_M=64", "BLOCK_N=64"),
        args=(f"in_desc={FP16_64}", f"out_desc={FP16_64}", "factor=2.0"),
    )
    # The descriptor's shared layout is the default TensorDescriptor.from_tensor would take.
    assert "NVMMASharedLayout(swizzle_byte_width=128" in c.variant.signature["in_desc"]
    assert "ttng.async_tma_copy_global_to_local" in c.stages[Stage.TTGIR]
    assert "ttng.wait_barrier" in c.stages[Stage.TTGIR]
    assert "cp.async.bulk.tensor" in c.stages[Stage.PTX] and "mbarrier" in c.stages[Stage.PTX]
    assert c.resources.instructions.async_copies >= 1


def test_warpgroup_mma_on_sm90():
    c = compiled(
        HOPPER,
        "sm90",
        kernel="wgmma_tile",
        constexprs=("BLOCK_M=64", "BLOCK_N=64", "BLOCK_K=64"),
        args=(f"a_desc={FP16_64}", f"b_desc={FP16_64}", f"c_desc={FP16_64}"),
    )
    assert "#ttg.nvidia_mma<{versionMajor = 3" in c.stages[Stage.TTGIR]
    assert "ttng.warp_group_dot" in c.stages[Stage.TTGIR]
    assert "HGMMA.64x64x16.F32" in c.stages[Stage.SASS]
    line = _source_line(HOPPER, "acc = warpgroup_mma(a, b, acc)")
    assert line in _lines(c, Stage.SASS, "HGMMA")


def test_tcgen05_mma_in_tensor_memory_on_sm100():
    c = compiled(
        str(GLUON / "blackwell.py"),
        "sm100",
        constexprs=("BLOCK_M=128", "BLOCK_N=64", "BLOCK_K=64"),
        args=("a_desc=tensordesc<fp16[128, 64]>", f"b_desc={FP16_64}", "c_desc=tensordesc<fp16[128, 64]>"),
    )
    ttgir = c.stages[Stage.TTGIR]
    assert "ttng.tmem_alloc" in ttgir and "ttng.tc_gen5_mma" in ttgir and "#ttng.tensor_memory" in ttgir
    assert "UTCHMMA" in c.stages[Stage.SASS] or "UTCQMMA" in c.stages[Stage.SASS]
    assert c.metadata.get("tmem_size", 0) >= 64


def test_warp_specialize_partitions_compile():
    c = compiled(
        str(GLUON / "warp_specialized.py"),
        "sm90",
        kernel="pipelined_scale",
        constexprs=("STAGES=2", "BLOCK=64"),
        args=("in_desc=tensordesc<fp32[64, 64]>", "out_ptr=*fp32", "factor=2.0", "tiles=16"),
    )
    ttgir = c.stages[Stage.TTGIR]
    assert "ttg.warp_specialize" in ttgir and "partition0" in ttgir
    assert "requestedRegisters = array<i32: 48>" in ttgir
    assert "setmaxnreg" in c.stages[Stage.PTX]


def test_list_and_stage_errors(cli):
    out = cli("list", GLUON / "layouts_basic.py").stdout
    assert "4 @gluon.jit functions" in out and "kernel, Gluon" in out
    result = cli(
        "dump",
        GLUON / "layouts_basic.py",
        "-k",
        "row_sum",
        "-c",
        "ROWS=16",
        "-c",
        "COLS=64",
        "-t",
        "sm90",
        "--stage",
        "ttir",
        expect=2,
    )
    assert "a @gluon.jit kernel has no ttir stage" in result.stderr


def test_dump_json_names_the_language_and_stages(cli):
    out = cli(
        "dump", GLUON / "layouts_basic.py", "-k", "row_sum", "-c", "ROWS=16", "-c", "COLS=64", "-t", "sm90", "--json"
    ).stdout
    doc = json.loads(out)
    assert doc["kernel"]["language"] == "gluon"
    assert (
        "ttir" not in doc["stages"]
        and "ttgir" in doc["stages"]
        and any("ttgir" in row["stages"] for row in doc["line_map"])
    )


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (("compare",), "TTGIR"),
        (("explain",), "row_sum"),
        (("check", "--budget", "registers<=64"), "its budget holds"),
        (("diff", "--vary", "ROWS=16,32"), "[1] ROWS=32"),
        (("passes",), "gluon-resolve-auto-encodings"),
    ],
)
def test_every_command_runs_on_a_gluon_kernel(cli, command, expected):
    args = ["-k", "row_sum", "-c", "COLS=64", "-t", "sm90"]
    if "--vary" not in command:
        args += ["-c", "ROWS=16"]
    assert expected in cli(command[0], GLUON / "layouts_basic.py", *command[1:], *args).stdout


def test_grid_says_the_interpreter_does_not_run_gluon(cli):
    result = cli(
        "grid",
        GLUON / "layouts_basic.py",
        "-k",
        "row_sum",
        "-c",
        "ROWS=16",
        "-c",
        "COLS=64",
        "-a",
        "n_cols=64",
        "--grid",
        "4",
        expect=2,
    )
    assert "is a @gluon.jit kernel" in result.stderr


def test_report_of_a_gluon_kernel(cli, tmp_path):
    out = tmp_path / "r.html"
    cli(
        "report", GLUON / "layouts_basic.py", "-k", "row_sum", "-c", "ROWS=16", "-c", "COLS=64", "-t", "sm90", "-o", out
    )
    page = out.read_text()
    assert 'id="column-ttgir"' in page and 'id="column-ttir"' not in page


SHARED = GLUON / "shared_memory.py"


def test_layout_lists_the_layouts_a_gluon_kernel_wrote_with_their_lines(cli):
    out = cli("layout", "--from", SHARED, "-k", "column_reads", "-c", "BLOCK=64", "-t", "sm90").stdout
    assert "layouts, written in the kernel (Gluon)" in out
    alloc = _source_line(SHARED, "smem = gl.allocate_shared_memory(gl.float32, [BLOCK, BLOCK], plain)")
    row = next(line for line in out.splitlines() if line.startswith("#shared "))
    assert "swizzled_shared" in row and str(alloc) in row


def test_bank_conflicts_of_reading_columns_unswizzled_and_swizzled(cli):
    def accesses(kernel):
        out = cli("layout", "--from", SHARED, "-k", kernel, "-c", "BLOCK=64", "-t", "sm90", "--json").stdout
        return {a["op"]: a for a in json.loads(out)["accesses"]}

    plain, swizzled = accesses("column_reads"), accesses("column_reads_swizzled")
    load_line = _source_line(SHARED, "by_column = smem.load(by_cols)")
    assert plain["local_load"]["python_lines"] == [load_line]
    # Each thread reads a column of the row-major tile: with no swizzle its lanes meet in few banks.
    assert plain["local_load"]["conflicts"] > swizzled["local_load"]["conflicts"] == 0


def test_shared_value_drawn_with_its_accesses(cli):
    out = cli("layout", "--from", SHARED, "-k", "column_reads", "-c", "BLOCK=64", "-t", "sm90", "--value", "smem")
    text = out.stdout
    assert "SwizzledSharedLayout(vec=1, per_phase=1, max_phase=1, order=[1, 0]" in text
    assert "local_load with #blocked1: 3 bank conflicts" in text
    # The bank of each element: Triton's shared linear layout (3.9), tritonscope's reading before.
    first_row = next(line for line in text.splitlines() if line.startswith(" 0 "))
    assert first_row.split()[1:9] == ["0", "1", "2", "3", "4", "5", "6", "7"]


def test_layout_draws_the_wgmma_accumulator(cli):
    out = cli(
        "layout",
        "--from",
        HOPPER,
        "-k",
        "wgmma_tile",
        "-c",
        "BLOCK_M=64",
        "-c",
        "BLOCK_N=64",
        "-c",
        "BLOCK_K=64",
        "-a",
        f"a_desc={FP16_64}",
        "-a",
        f"b_desc={FP16_64}",
        "-a",
        f"c_desc={FP16_64}",
        "-t",
        "sm90",
        "--value",
        "acc",
    ).stdout
    assert "#ttg.nvidia_mma<{versionMajor = 3" in out
    assert "NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16]" in out
    assert "64x64 elements over 4 warps x 32 lanes x 32 registers per thread" in out


WS_ARGS = ("in_desc=tensordesc<fp32[64, 64]>", "out_ptr=*fp32", "factor=2.0", "tiles=16")


def test_gluon_partitions_with_warps_registers_and_lines():
    c = compiled(
        str(GLUON / "warp_specialized.py"),
        "sm90",
        kernel="pipelined_scale",
        constexprs=("STAGES=2", "BLOCK=64"),
        args=WS_ARGS,
    )
    default, loader = c.partitions
    path = GLUON / "warp_specialized.py"
    assert (default.name, default.warps) == ("default", 4) and (loader.name, loader.warps, loader.registers) == (
        "partition0",
        1,
        48,
    )
    assert _source_line(path, "tile = buffers.index(slot).load(regs)") in default.python_lines
    assert _source_line(path, "mbarrier.expect(ready.index(slot)") in loader.python_lines
    assert _source_line(path, "mbarrier.expect(ready.index(slot)") not in default.python_lines
    # 8 warps launch with 256 registers; the loader's warp group drops to its 48, and what it frees
    # would give the default 464, which setmaxnreg caps at 256.
    assert (default.registers, default.requested, loader.requested) == (256, None, 48)
    assert "setmaxnreg.dec.sync.aligned.u32 \t48;" in c.stages[Stage.PTX]


def test_register_budgets_of_a_warp_specialized_attention_are_what_setmaxnreg_sets():
    from tritonscope.analysis.findings import OCCUPANCY, PARTITION
    from tritonscope.analysis.warp_specialize import held_by_op
    from tritonscope.app.explain import explain_compilation

    c = compiled("sample:fused_attention_gluon", "sm90", kernel="attention_gluon_kernel")
    # 12 warps (4 + 4 + the copying warp padded to a warp group) launch with 65536 / 384 -> 168
    # registers; the copying group takes 24, the second warp group the 240 it asked, the default
    # what is left: (168 x 384 - 128 x 240 - 128 x 24) / 128 = 240.
    assert [(p.name, p.warps, p.registers, p.requested) for p in c.partitions] == [
        ("default", 4, 240, None),
        ("partition0", 4, 240, 240),
        ("partition1", 1, 24, 24),
    ]
    ptx = c.stages[Stage.PTX]
    assert ".maxnreg 168" in ptx
    assert {n for n in (240, 24) if f"setmaxnreg.dec.sync.aligned.u32 \t{n};" in ptx} == {240, 24}
    assert held_by_op(c.partitions) == [(c.partitions, 64_512)] and 64_512 <= 168 * 384
    result = explain_compilation(c)
    messages = [f.message for f in result.findings if f.kind == PARTITION]
    assert "default: 4 warps, 240 registers per thread (setmaxnreg)" in messages[0]
    evidence = [f.evidence for f in result.findings if f.kind == PARTITION]
    assert len(evidence) == 3 and all("together 64,512 of the SM's 65,536 registers" in e for e in evidence)
    # One block per SM is the partitions' design, not a register problem to fix.
    assert not [f for f in result.findings if f.kind == OCCUPANCY]


def test_dump_says_the_launch_registers_are_shared_out_by_setmaxnreg(cli):
    out = cli("dump", "sample:fused_attention_gluon", "--stage", "source").stdout
    row = next(line for line in out.splitlines() if "│ registers" in line)
    assert "168" in row and "per thread at launch; setmaxnreg gives the partitions 240, 240, 24" in row
    plain = cli("dump", "sample:row_sum_gluon", "--stage", "source").stdout
    assert "setmaxnreg" not in plain and "per thread" in plain


def test_workers_that_leave_the_default_too_few_registers_get_none_reallocated():
    """Triton's rule (AllocateWarpGroups): two 4-warp workers asking 248 beside 4 default warps at
    168 would leave the default 8 registers, under its 24: no setmaxnreg, every warp keeps 168."""
    from tritonscope.analysis.warp_specialize import Partition, _allotted

    op = [Partition("default", 4, None, None, (), (1, 1))] + [
        Partition(f"partition{i}", 4, None, 248, (), (1, 1)) for i in range(2)
    ]
    assert [p.registers for p in _allotted(op, 4, 2, 168)] == [None, None, None]
    asked_less = [op[0]] + [Partition(f"partition{i}", 4, None, 200, (), (1, 1)) for i in range(2)]
    assert [p.registers for p in _allotted(asked_less, 4, 2, 168)] == [104, 200, 200]


def test_triton_warp_specialize_shown_in_dump(cli):
    out = cli(
        "dump", KERNELS / "warp_specialized_matmul.py", "--dtype", "fp16", "-t", "sm100", "--stage", "source"
    ).stdout
    assert "warp specialization" in out and "partition0" in out and "default" in out
    doc = json.loads(
        cli(
            "dump",
            KERNELS / "warp_specialized_matmul.py",
            "--dtype",
            "fp16",
            "-t",
            "sm100",
            "--stage",
            "source",
            "--json",
        ).stdout
    )
    names = [p["name"] for p in doc["warp_specialization"]]
    assert names[0] == "default" and "partition0" in names
    # Triton asked 24 registers for each worker; their warp group (1 + 2 warps and a padding warp)
    # drops to 24, and the default's leftover, 488, is capped at 256 by setmaxnreg.
    budgets = [(p["name"], p["warps"], p["registers"], p["requested"]) for p in doc["warp_specialization"]]
    assert budgets == [("default", 4, 256, None), ("partition0", 1, 24, 24), ("partition1", 2, 24, 24)]
    loop = _source_line(KERNELS / "warp_specialized_matmul.py", "acc = tl.dot(a, b.T, acc)")
    assert any(loop in p["python_lines"] for p in doc["warp_specialization"] if p["name"] != "default")


def test_explain_reports_bank_conflicts_and_partitions(cli):
    out = cli("explain", SHARED, "-k", "column_reads", "-c", "BLOCK=64", "-t", "sm90", "--json").stdout
    conflicts = [f for f in json.loads(out)["findings"] if f["kind"] == "bank-conflicts"]
    load_line = _source_line(SHARED, "by_column = smem.load(by_cols)")
    assert any(f["line"] == load_line and "3 bank conflicts" in f["message"] for f in conflicts)
    out = cli(
        "explain",
        GLUON / "warp_specialized.py",
        "-k",
        "pipelined_scale",
        "-c",
        "STAGES=2",
        "-c",
        "BLOCK=64",
        *[x for a in WS_ARGS for x in ("-a", a)],
        "-t",
        "sm90",
        "--json",
    ).stdout
    parts = [f for f in json.loads(out)["findings"] if f["kind"] == "warp-partition"]
    assert any("partition0: 1 warp, 48 registers per thread" in f["message"] for f in parts)


def test_a_conversion_the_author_wrote_is_not_called_unwritten(cli):
    out = cli("explain", SHARED, "-k", "relayout", "-c", "BLOCK=64", "-t", "sm90", "--json").stdout
    conversions = [f for f in json.loads(out)["findings"] if f["kind"] == "layout-conversion"]
    assert conversions and not any("not written" in f["message"] for f in conversions)


def test_a_conversion_written_in_a_helper_is_the_authors(cli):
    """The finding lands on the helper's line, outside the kernel's own source: it was once called
    unwritten there, the check reading only the kernel function's lines."""
    out = cli("explain", SHARED, "-k", "relayout_in_helper", "-c", "BLOCK=64", "-t", "sm90", "--json").stdout
    conversions = [f for f in json.loads(out)["findings"] if f["kind"] == "layout-conversion"]
    helper = _source_line(SHARED, "return gl.convert_layout(x, layout)")
    assert [f["line"] for f in conversions] == [helper]
    assert "#blocked -> #blocked1" in conversions[0]["message"] and "not written" not in conversions[0]["message"]


GLUON_KERNELS = [
    (SHARED, "sm90", {"kernel": k, "constexprs": ("BLOCK=64",)})
    for k in ("column_reads", "column_reads_swizzled", "relayout", "relayout_in_helper")
] + [
    (GLUON / "layouts_basic.py", "sm90", {"kernel": "row_sum", "constexprs": ("ROWS=16", "COLS=64")}),
    (
        GLUON / "warp_specialized.py",
        "sm90",
        {"kernel": "pipelined_scale", "constexprs": ("STAGES=2", "BLOCK=64"), "args": WS_ARGS},
    ),
    (
        HOPPER,
        "sm90",
        {
            "kernel": "wgmma_tile",
            "constexprs": ("BLOCK_M=64", "BLOCK_N=64", "BLOCK_K=64"),
            "args": (f"a_desc={FP16_64}", f"b_desc={FP16_64}", f"c_desc={FP16_64}"),
        },
    ),
    # FlashAttention-3's overlap in Gluon: five conversions, in and around its wgmma loop.
    ("sample:fused_attention_gluon", "sm90", {"kernel": "attention_gluon_kernel"}),
]


@pytest.mark.parametrize(("path", "target", "flags"), GLUON_KERNELS, ids=lambda x: str(x).split("/")[-1][:24])
def test_every_gluon_conversion_comes_from_a_convert_layout_call(path, target, flags):
    """What the unwritten-conversion mark rests on (analysis/findings/gluon.py's unwritten): Gluon's pipeline adds
    and moves no ttg.convert_layout, so each one's lines hold a convert_layout call. Were a release to
    insert one (CI runs this on 3.9 too), this fails, and the mark would then fire on that kernel."""
    c = compiled(str(path), target, **flags)
    lines = c.stages[Stage.TTGIR].splitlines()
    texts = {(c.kernel.file, n): t for n, t in enumerate(open(c.kernel.file).read().splitlines(), 1)}
    converts = [n for n, t in enumerate(lines, 1) if "ttg.convert_layout" in t]
    for number in converts:
        places = c.line_map[Stage.TTGIR].get(number, ())
        assert any("convert_layout" in texts.get(p, "") for p in places), (lines[number - 1], places)
    if flags["kernel"] in ("relayout", "relayout_in_helper", "attention_gluon_kernel"):
        assert converts  # the kernels that call it have some, so the claim is tested on them
    elif path == SHARED:
        assert not converts


def test_a_layout_given_as_a_constexpr():
    layout = "layout=gl.BlockedLayout([4], [32], [4], [0])"
    c = compiled(str(GLUON / "layouts_basic.py"), "sm90", kernel="copy_in_layout", constexprs=("BLOCK=1024", layout))
    assert (
        "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"
        in c.stages[Stage.TTGIR]
    )
    assert "-c 'layout=gl.BlockedLayout([4], [32], [4], [0])'" in c.variant.command_line()


def test_a_layout_constexpr_runs_only_gluon_layout_calls(cli):
    result = cli(
        "dump",
        GLUON / "layouts_basic.py",
        "-k",
        "copy_in_layout",
        "-c",
        "BLOCK=1024",
        "-t",
        "sm90",
        "-c",
        "layout=gl.BlockedLayout([4], [32], [4], [0], ().__class__)",
        expect=2,
    )
    assert "only gl.<Layout>(...) calls with literal arguments" in result.stderr


def test_a_sweep_over_a_target_newer_than_nvdisasm_says_why(cli):
    out = cli("diff", "sample:vector_add", "--vary", "target=sm90,sm103", "--json").stdout
    variants = json.loads(out)["variants"]
    assert variants[0]["ok"] and variants[1]["ok"]
    # tritonscope[sass] (installed with [test]) reads the sm103 cubin Triton 3.6's nvdisasm cannot
    assert all(v["resources"]["instructions"]["total"] > 0 for v in variants)


def test_pointers_inferred_through_partitions_and_async_copies(cli):
    doc = json.loads(cli("list", GLUON / "warp_specialized.py", "--json").stdout)
    kernel = next(k for k in doc["kernels"] if k["name"] == "pipelined_scale")
    out_ptr = next(p for p in kernel["params"] if p["name"] == "out_ptr")
    assert (out_ptr["kind"], out_ptr["type_from"]) == ("pointer", "body")


def test_an_operation_the_target_lacks_is_a_compile_error_not_a_crash(cli):
    result = cli(
        "dump",
        HOPPER,
        "-k",
        "wgmma_tile",
        "-c",
        "BLOCK_M=64",
        "-c",
        "BLOCK_N=64",
        "-c",
        "BLOCK_K=64",
        "-a",
        f"a_desc={FP16_64}",
        "-a",
        f"b_desc={FP16_64}",
        "-a",
        f"c_desc={FP16_64}",
        "-t",
        "sm100",
        expect=1,
    )
    assert "wgmma_tile does not compile for sm100" in result.stderr
    assert "it uses warpgroup_mma (Hopper (sm90) only)" in result.stderr


def test_a_gluon_explain_ends_with_no_report_of_the_objects_alive_at_exit():
    """Triton 3.9's nanobind wrote `nanobind: leaked 4 instances! ...` (26 lines) after a Gluon kernel's
    output: the teardown, after the command has said everything, writes nothing."""
    from cli_process import tritonscope  # a process of its own: its own teardown

    flags = ("-k", "row_sum", "-c", "ROWS=16", "-c", "COLS=64")
    done = tritonscope("explain", GLUON / "layouts_basic.py", *flags, "-t", "sm90")
    assert "row_sum" in done.stdout and "nanobind" not in done.stderr and "leaked" not in done.stderr
    refused = tritonscope("dump", GLUON / "layouts_basic.py", *flags, "-t", "gfx942", expect=1)  # 32-lane layouts
    assert "another warp size than gfx942's 64" in refused.stderr and "nanobind" not in refused.stderr
