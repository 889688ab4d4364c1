"""Every terminal view at 80 columns (logs, CI, pipes): no line is wider, and what a user must
read or type is there whole. Renderers on fixed results, with no compile."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from test_render import _compilation

from tritonscope.analysis.diffing import StageDiff
from tritonscope.analysis.layouts import ownership, parse
from tritonscope.analysis.passes import LlvmPassRecord, PassRecord
from tritonscope.captures.entries import CacheEntry
from tritonscope.core.model import Compilation, InstructionMix, Occupancy, Resources, VariantRequest
from tritonscope.core.stages import Stage
from tritonscope.render.terminal.base import Terminal
from tritonscope.render.terminal.bench import BenchView
from tritonscope.render.terminal.cache import CacheView
from tritonscope.render.terminal.code import CUT, cells
from tritonscope.render.terminal.compare import CompareView
from tritonscope.render.terminal.diff import DiffView, resource_columns
from tritonscope.render.terminal.dump import DumpView
from tritonscope.render.terminal.grid import GridView
from tritonscope.render.terminal.layout import LayoutView
from tritonscope.render.terminal.passes import PassesView
from tritonscope.results.bench import BenchResult, Measurement, Peak
from tritonscope.results.cache import CacheListing
from tritonscope.results.diff import DiffResult, VariantOutcome
from tritonscope.results.dump import DumpResult
from tritonscope.results.grid import Access, GridResult, Program
from tritonscope.results.layout import LayoutResult
from tritonscope.results.passes import PassesResult

NARROW = Terminal(80, False)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def lines_of(out: str, width: int = 80) -> list[str]:
    """The lines of a view's output, each checked to fit the width (colour codes take no columns)."""
    lines = strip_ansi(out).splitlines()
    too_wide = [line for line in lines if cells(line) > width]
    assert not too_wide, f"{len(too_wide)} lines wider than {width}: {too_wide[:3]}"
    return lines


def whole(word: str, lines: list[str]) -> bool:
    """`word` on one line, not part of a longer word: not cut, not folded."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])")
    return any(pattern.search(line) for line in lines)


# --- passes ---------------------------------------------------------------------------------------

PASS_NAMES = [
    ("inline", "Inliner", "TTIR"),
    ("canonicalize", "Canonicalizer", "TTIR"),
    ("triton-rewrite-tensor-descriptor-to-pointer", "TritonRewriteTensorDescriptorToPointer", "TTIR"),
    ("convert-triton-to-tritongpu", "ConvertTritonToTritonGPU", "TTIR"),
    ("tritongpu-global-scratch-memory-allocation", "TritonGPUGlobalScratchAllocationPass", "TTGIR"),
    ("triton-nvidia-optimize-descriptor-encoding", "TritonNvidiaGPUOptimizeDescriptorEncodingPass", "TTGIR"),
    ("convert-nvvm-to-llvm", "ConvertNVVMToLLVMPass", "LLVM dialect"),
]


def _passes(**kw) -> PassesResult:
    records = tuple(
        PassRecord(i, name, cls, level, 1, 1, i % 2 == 1, 1234 * i, 5678, (), "a\n", "b\n")
        for i, (name, cls, level) in enumerate(PASS_NAMES, start=1)
    )
    return PassesResult(_compilation().variant, records, triton_version="3.6.0", **kw)


def test_passes_at_80_columns_keep_every_pass_name_whole():
    lines = lines_of(PassesView(NARROW).render(_passes()))
    for name, _, level in PASS_NAMES:
        assert whole(name, lines), name
        assert f"on {level}:" in lines
    assert whole("+1234", lines) and whole("-5678", lines)  # what each pass changed
    assert "(each pass's class: --json, or a wider terminal)" in lines
    wide = strip_ansi(PassesView(Terminal(200, False)).render(_passes())).splitlines()
    assert all(whole(cls, wide) for _, cls, _ in PASS_NAMES)


def test_llvm_passes_at_80_columns_fold_only_what_cannot_fit():
    long = "InvalidateAnalysisPass<llvm::ShouldNotRunFunctionPassesAnalysis, llvm::ModuleAnalysisManagerProxy>"
    names = ["Annotation2MetadataPass", "InvalidateAnalysisPass<llvm::ShouldNotRunFunctionPassesAnalysis>", long]
    llvm = tuple(LlvmPassRecord(i, n, "[module]", True, 3, 8) for i, n in enumerate(names, start=1))
    lines = lines_of(PassesView(NARROW).render(_passes(llvm_records=llvm)))
    assert whole(names[0], lines) and whole(names[1], lines) and "on [module]:" in lines
    first = next(i for i, line in enumerate(lines) if line.startswith("3  InvalidateAnalysisPass<"))
    pieces = [lines[first][3:].split("  ")[0], lines[first + 1].strip()]
    assert " ".join(pieces) == long  # folded after a space, nothing lost


def test_passes_show_folds_the_diff_and_keeps_the_title():
    record = PassRecord(
        3, "tritongpu-coalesce", "TritonGPUCoalesce", "TTGIR", 1, 1, True, 1, 1, (), "x\n", "#blocked = " + "y" * 150
    )
    out = PassesView(NARROW).render(_passes(selected=(record,)))
    lines = lines_of(out)
    assert "pass 3: tritongpu-coalesce (TritonGPUCoalesce) on TTGIR" in out
    assert "".join(line.strip() for line in lines).count("y") == 150  # folded, nothing lost


# --- bench ----------------------------------------------------------------------------------------


def _bench() -> BenchResult:
    measurements = (
        Measurement(98432, {"BLOCK_SIZE": "1024"}, 1e-7, True, 0.0123, 0.0247, 1534.6, 0.0, 26, 0, "100% (warps)"),
        Measurement(1 << 27, {"BLOCK_SIZE": "256", "num_warps": "8"}, 1e-7, True, 0.41, 0.45, 2621.4, 1.2, 32, 4),
        Measurement(4096, {}, 0.3, False),
        Measurement(
            4096, {"BLOCK_SIZE": "64"}, 0.0, False, failure="out of resources: shared memory, Required: 232448"
        ),
    )
    return BenchResult("sample:vector_add", Peak(3000.0, 700.0), measurements)


def test_bench_at_80_columns_stacks_one_block_per_result_with_every_figure():
    lines = lines_of(BenchView(NARROW).render(_bench()))
    for figure in ("98,432", "BLOCK_SIZE=1024", "0.012", "1,535", "51%", "0.025", "2.01x", "100% (warps)"):
        assert whole(figure, lines), figure
    for figure in ("134,217,728", "0.410", "2,621", "87%", "1.2", "0%", "1.10x"):
        assert whole(figure, lines), figure
    assert whole("WRONG (error 3.0e-01)", lines) and "out of resources: shared memory" in " ".join(lines)
    for name in ("ms", "GB/s", "% copy", "TFLOP/s", "vs torch", "regs", "spills"):
        assert any(f"{name} " in line for line in lines), name  # each figure named in its block
    assert not any(CUT in line for line in lines)
    wide = BenchView(Terminal(200, False)).render(_bench())
    assert "% matmul" in wide.splitlines()[2]  # a table where it fits: the header row


# --- diff ---------------------------------------------------------------------------------------


def _variants(count: int) -> DiffResult:
    outcomes = []
    for i in range(count):
        c = _compilation(block=2**i, registers=40 + 17 * i)
        mix = InstructionMix(100 + i, {128: 16 >> (i % 3)}, {64: 2}, i, 3, 1, 4 * i, 7 + i, 0, 0)
        occupancy = Occupancy(12, 48, 64, "shared memory" if i % 2 else "registers")
        resources = Resources(40 + 17 * i, 0, 148480 - 1024 * i, 0, 0, occupancy, instructions=mix)
        label = {"num_warps": str(4 << (i % 2)), "num_stages": str(2 + i % 3), "BLOCK_SIZE_K": str(32 << (i % 2))}
        outcomes.append(VariantOutcome(label, VariantRequest(file="/k.py"), replace(c, resources=resources)))
    outcomes.append(
        VariantOutcome({"BLOCK_SIZE_K": "7"}, VariantRequest(file="/k.py"), None, "arange's range must be a power of 2")
    )
    diff = StageDiff(Stage.TTIR, 0, 1, ("%0 = tt.load x : tensor<64xf32>",), ("%0 = tt.load x : tensor<128xf32>",))
    return DiffResult(tuple(outcomes), (diff,))


@pytest.mark.parametrize("count", [2, 8])
def test_diff_at_80_columns_shows_every_figure_and_label_whole(count):
    result = _variants(count)
    lines = lines_of(DiffView(NARROW).render(result))
    for i, outcome in enumerate(result.outcomes[:-1]):
        assert f"[{i}] {outcome.describe()}" in lines
        for name, figure in resource_columns(outcome.compilation).items():
            assert whole(figure, lines), (name, figure)
    assert whole("148,480 B", lines) and whole("16x128b", lines) and whole("75% (shared memory)", lines)
    assert any("FAILED: arange's range must be a power of 2" in line for line in lines)
    for name in ("registers", "shared memory", "occupancy", "global loads", "barriers"):
        assert any(name in line for line in lines), name
    assert "tensor<128xf32>" in "\n".join(lines) and not any(CUT in line for line in lines)


def test_diff_with_many_variants_at_80_columns_has_a_row_per_variant():
    lines = lines_of(DiffView(NARROW).render(_variants(8)))
    assert "the same in every variant:" in lines and "differs between variants:" in lines
    rows = [line for line in lines if re.match(r"\[\d\]\s+\d", line)]
    assert len(rows) >= 8 and {line.split()[0] for line in rows} == {f"[{i}]" for i in range(8)}


def test_diff_side_by_side_at_80_columns_folds_both_sides():
    old = "%0 = tt.load %x_ptr : tensor<64x!tt.ptr<f32>, #blocked> loc(#loc3) " + "a" * 60
    diff = StageDiff(Stage.TTIR, 0, 1, (old,), (old.replace("64x", "128x"),))
    result = replace(_variants(2), diffs=(diff,))
    lines = lines_of(DiffView(NARROW, side_by_side=True).render(result))
    left = "".join(line.split(" │ ")[0][2:].strip() for line in lines if " │ " in line and line.startswith(("~", " ")))
    assert "tensor<64x!tt.ptr<f32>," in left and left.count("a") >= 60


# --- cache list -----------------------------------------------------------------------------------

NAMES = ["add_kernel", "triton_per_fused__native_batch_norm_legit_functional_add_0", "matmul_kernel_persistent_tma"]


def _cache(stages=("ttir", "ttgir", "llir", "ptx", "cubin")) -> CacheListing:
    metadata = {"num_warps": 4, "num_stages": 3, "target": {"backend": "cuda", "arch": 90}}
    entries = tuple(
        CacheEntry(Path(f"/cache/{i}"), name, metadata, stages, 12345 * (i + 1), 1.7e9) for i, name in enumerate(NAMES)
    )
    return CacheListing(Path("/home/user/.triton/cache"), entries)


@pytest.mark.parametrize(
    "stages", [("ttir", "ttgir", "llir", "ptx", "cubin"), ("ttir", "ttgir", "llir", "amdgcn", "hsaco")]
)
def test_cache_list_at_80_columns_keeps_kernel_names_whole(stages):
    lines = lines_of(CacheView(NARROW).render(_cache(stages)))
    assert all(whole(name, lines) for name in NAMES)
    assert "each with the files: " + " ".join(stages) in lines
    assert whole("12 KiB", lines) and whole("36 KiB", lines) and whole("sm90", lines)
    assert "  tritonscope dump /home/user/.triton/cache/:add_kernel" in lines


# --- layout ---------------------------------------------------------------------------------------


def test_layout_of_64x64_at_80_columns_is_drawn_in_bands():
    layout = parse(
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>"
    )
    bases = {
        "register": [[0, 32], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0]],
        "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
        "warp": [],
    }
    lines = lines_of(LayoutView(NARROW).render(LayoutResult(layout, ownership(bases, (64, 64)))))
    assert [line for line in lines if line.startswith("columns ")] == [
        "columns 0-15:",
        "columns 16-31:",
        "columns 32-47:",
        "columns 48-63:",
    ]
    row = " ".join(f"{lane:>2}" for lane in range(16, 32))
    assert sum(line.endswith(row + " w0") for line in lines) == 2 * 64  # columns 16-31 and 48-63, every row
    assert "64x64 elements over 1 warp x 32 lanes x 128 registers per thread" in lines


# --- compare and dump -----------------------------------------------------------------------------

SASS_LINES = [
    "        /*0c60*/                   LDGSTS.E.BYPASS.128 [R13+0x1000], desc[UR14][R26.64+0x80], P1 ;",
    "        /*0c70*/                   HGMMA.64x128x16.F32 gdesc[UR4], RZ, !UPT, gsb0 ;",
]
TTGIR_LINE = "    %0 = tt.load %x_ptr, %mask : tensor<128x64x!tt.ptr<f16>, #blocked1> " + "{cache = 1 : i32} " * 4


def _wide_compilation() -> Compilation:
    c = _compilation()
    stages = {Stage.SOURCE: c.stages[Stage.SOURCE], Stage.TTGIR: TTGIR_LINE + "\n", Stage.SASS: "\n".join(SASS_LINES)}
    line_map = {Stage.TTGIR: {1: (("/k.py", 3),)}, Stage.SASS: {1: (("/k.py", 3),), 2: (("/k.py", 3),)}}
    return replace(c, stages=stages, line_map=line_map)


def test_compare_at_80_columns_keeps_every_operand_whole():
    result = DumpResult(_wide_compilation(), (Stage.SOURCE, Stage.TTGIR, Stage.SASS))
    for width in (80, 120):
        lines = lines_of(CompareView(Terminal(width, False)).render(result), width)
        for operand in " ".join(SASS_LINES).split():
            assert whole(operand, lines) or operand in ",;", (width, operand)
        assert any(f"{CUT} │" in line for line in lines)  # the TTGIR line is cut, visibly
    lines = lines_of(CompareView(Terminal(80, False), wrap=True).render(result))
    ttgir = " ".join(line.split(" │ ")[1].strip() for line in lines if line.count(" │ ") == 2)
    assert ttgir.count("{cache = 1 : i32}") == 4 and CUT not in ttgir  # folded in its column, whole


def test_dump_at_80_columns_cuts_long_ir_lines_with_the_marker_and_wrap_folds_them():
    result = DumpResult(_wide_compilation(), (Stage.TTGIR, Stage.SASS))
    lines = lines_of(DumpView(NARROW, annotate=True).render(result))
    cut = [line for line in lines if line.endswith(CUT)]
    assert len(cut) == 2 and all(line.count("py 3 │") == 1 for line in cut)  # the gutter stays
    # the SASS's padding is cut first (most of its lines would not fit): one of its two lines now does
    assert any(line.endswith("│ /*0c70*/  HGMMA.64x128x16.F32 gdesc[UR4], RZ, !UPT, gsb0 ;") for line in lines), lines
    assert "TTGIR (Triton GPU IR)  (1 line)" in " ".join(lines) and "k[/x]" in " ".join(lines)
    folded = lines_of(DumpView(NARROW, wrap=True).render(result))
    assert not any(line.endswith(CUT) for line in folded)
    assert "gdesc[UR4]," in " ".join(folded) and " ".join(folded).count("{cache = 1 : i32}") == 4
    coloured = DumpView(Terminal(80, True)).render(result)
    assert "\x1b[" in coloured and lines_of(coloured)
    # piped (no colour), the cut lines are said at the end: a file's reader sees no edge
    plain = strip_ansi(DumpView(NARROW).render(result)).splitlines()
    note = " ".join(" ".join(plain[-2:]).split())
    assert note == "long lines are cut at 80 columns (…): --wrap folds them, -o DIR writes each stage whole"
    assert strip_ansi(coloured).splitlines()[-8:] == plain[-10:-2] and "long lines" not in coloured
    assert "long lines are cut" not in DumpView(NARROW, wrap=True).render(result)


def test_dump_side_by_side_at_80_columns():
    result = DumpResult(_wide_compilation(), (Stage.TTGIR, Stage.SASS))
    lines = lines_of(DumpView(NARROW, side_by_side=True).render(result))
    assert any(line.startswith("TTGIR (Triton GPU IR)") and "│ SASS" in line for line in lines)
    assert sum(CUT in line for line in lines) >= 2


# --- grid -----------------------------------------------------------------------------------------


def test_grid_of_many_tiles_at_80_columns_is_drawn_in_bands_with_every_program():
    side, stride = 48, 96  # 48 x 48 output tiles of 2 x 2 elements, axis 0 fastest
    programs = []
    for c in range(side):
        for r in range(side):
            start = 2 * r * stride + 2 * c
            runs = [[start, start + 2], [start + stride, start + stride + 2]]
            programs.append(Program(len(programs), (r, c, 0), [], [Access("c_ptr", runs, 4)]))
    result = GridResult(_compilation().variant, (side, side), tuple(programs))
    lines = lines_of(GridView(NARROW).render(result))
    rows = [line for line in lines if re.fullmatch(r"[\d ]+", line)]
    numbers = [int(word) for line in rows for word in line.split()]
    assert sorted(numbers) == list(range(side * side))  # every program's number, whole, once
    assert "tile columns 0-15:" in lines and "tile columns 32-47:" in lines


def test_a_path_longer_than_the_width_is_kept_whole_on_a_line_of_its_own():
    """Prose folds at spaces; a word longer than a line is split, but a path (a newcomer met
    `.../tritonsc` / `ope/sample_kernels` in a diff's heading) stays whole, to be copied."""
    from tritonscope.render.terminal.code import wrapped

    path = "/tmp/" + "a_folder_of_a_long_name/" * 4 + "kernel.py"
    lines = wrapped(f"double_kernel ({path}): 2 variants, compiled for sm90", 80, False)
    assert lines == ["double_kernel", f"    ({path}):", "    2 variants, compiled for sm90"]
    word = "x" * 100  # not a path: split at the width, as before
    assert [len(line) for line in wrapped(word, 80, False)] == [80, 24]


def test_a_path_with_a_space_in_a_folder_name_is_not_folded_at_it(tmp_path):
    """A diff's heading folded `(/tmp/Jösé` / `ñame/.../softmax.py)`: a path split at its own space
    cannot be copied. Folded around it, it stays whole (on a line of its own where it is longer)."""
    from cli_process import tritonscope

    from tritonscope.core.samples import samples_dir
    from tritonscope.render.terminal.code import wrapped

    path = "/tmp/a folder/kernel.py"
    said = f"double_kernel ({path}): 2 variants, compiled for sm90"
    spaced = "/tmp/a\u00a0no-break space/kernel.py"  # kept as it is, not turned into a space
    assert wrapped(f"k ({spaced})", 80, False, keep=(spaced,)) == [f"k ({spaced})"]
    assert wrapped(said, 24, False, keep=(path,)) == [
        "double_kernel",
        f"    ({path}):",
        "    2 variants, compiled",
        "    for sm90",
    ]
    folder = tmp_path / "sp ace"
    folder.mkdir()
    kernel = folder / "softmax.py"
    kernel.write_text((samples_dir() / "softmax.py").read_text())
    shown = tritonscope("diff", kernel, "--vary", "target=sm80,sm90", env={"COLUMNS": "60"}).stdout
    assert f"({kernel}):" in shown, shown
