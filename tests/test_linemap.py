"""The source-line map: what each Python line became, in every stage, from real compiles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import KERNELS, compiled
from hypothesis import given, settings
from hypothesis import strategies as st

from tritonscope.analysis import linemap
from tritonscope.core.stages import STAGES, Stage
from tritonscope.parsers import asm_loc, llvm_debug, mlir_locations, sass_lines


def _line_of(c, needle: str) -> int:
    """The first line of the kernel's file containing `needle` (maybe in a helper the kernel calls)."""
    lines = Path(c.kernel.file).read_text().splitlines()
    return 1 + next(i for i, text in enumerate(lines) if needle in text and not text.lstrip().startswith("#"))


def _mapped_text(c, stage: Stage, line: int, file: str | None = None) -> str:
    text = c.stages[stage].splitlines()
    return "\n".join(text[n - 1] for n in linemap.stage_lines(c, stage, {(file or c.kernel.file, line)}))


@pytest.mark.parametrize("sample", ["matmul", "fused_attention"])
@pytest.mark.parametrize(
    ("target", "ttgir_dot", "ptx_dot", "sass_dot"),
    [("sm90", "ttng.warp_group_dot ", "wgmma.mma_async", "HGMMA"), ("sm80", "tt.dot ", "mma.sync", "HMMA")],
)
def test_the_dot_line_becomes_tensor_core_instructions(sample, target, ttgir_dot, ptx_dot, sass_dot):
    c = compiled(f"sample:{sample}", target)
    dot = _line_of(c, "tl.dot(")
    assert "tt.dot " in _mapped_text(c, Stage.TTIR, dot)
    assert ttgir_dot in _mapped_text(c, Stage.TTGIR, dot)
    assert ptx_dot in _mapped_text(c, Stage.PTX, dot)
    assert sass_dot in _mapped_text(c, Stage.SASS, dot)
    # ... and nothing of the dot shows up under an unrelated line.
    store = _line_of(c, "tl.store(")
    assert sass_dot not in _mapped_text(c, Stage.SASS, store)


@pytest.mark.parametrize("sample", ["matmul", "fused_attention"])
@pytest.mark.parametrize("target", ["sm90", "sm80"])
def test_the_load_line_becomes_global_loads(sample, target):
    c = compiled(f"sample:{sample}", target)
    load = _line_of(c, "tl.load(")
    assert "tt.load " in _mapped_text(c, Stage.TTIR, load)
    ptx, sass = _mapped_text(c, Stage.PTX, load), _mapped_text(c, Stage.SASS, load)
    # A plain load, or the asynchronous copy the software pipeliner turns it into.
    assert "ld.global" in ptx or "cp.async" in ptx
    assert "LDG" in sass  # LDG, or LDGSTS for the async copy


def test_code_inlined_from_a_helper_maps_to_the_helper_and_the_call_site():
    c = compiled(str(KERNELS / "mixed.py"), "sm90", kernel="scale_kernel", constexprs=("BLOCK=64",))
    helper_load, call = 9, 17  # tl.load in load_scaled, called from scale_kernel
    for stage, op in [
        (Stage.TTIR, "tt.load "),
        (Stage.TTGIR, "tt.load "),
        (Stage.LLIR, "ld.global"),
        (Stage.PTX, "ld.global"),
        (Stage.SASS, "LDG"),  # the cubin has no inlining records: the call site comes through the PTX
    ]:
        at_helper = linemap.stage_lines(c, stage, {(c.kernel.file, helper_load)})
        at_call = linemap.stage_lines(c, stage, {(c.kernel.file, call)})
        loads = [n for n in at_helper if op in c.stages[stage].splitlines()[n - 1]]
        assert loads and set(loads) <= set(at_call), stage
    assert "LDG" in _mapped_text(c, Stage.SASS, helper_load)


def test_gfx942_maps_to_amdgcn():
    c = compiled("sample:matmul", "gfx942")
    assert "v_mfma" in _mapped_text(c, Stage.AMDGCN, _line_of(c, "tl.dot("))
    assert "buffer_load" in _mapped_text(c, Stage.AMDGCN, _line_of(c, "tl.load("))


@pytest.mark.parametrize(
    ("sample", "target"), [("matmul", "sm90"), ("fused_attention", "sm80"), ("layernorm", "gfx942")]
)
def test_every_line_of_the_map_points_into_the_real_file(sample, target):
    c = compiled(f"sample:{sample}", target)
    seen = linemap.python_lines(c)
    assert seen[0][0] == c.kernel.file  # the kernel's own lines come first
    # Others are @triton.jit functions inlined from Triton's standard library (tl.sum, tl.cdiv...).
    for file, line in seen:
        lines = Path(file).read_text().splitlines()
        assert 1 <= line <= len(lines) and lines[line - 1].strip(), (file, line)
    for stage in c.stages:
        assert c.line_map[stage], f"{stage.value} has no line map"


def test_json_report_carries_the_map(cli):
    doc = json.loads(cli("dump", "sample:vector_add", "-t", "sm90", "--json").stdout)
    entries = {e["line"]: e["stages"] for e in doc["line_map"]}
    load = 21  # x = tl.load(x_ptr + offsets, mask=mask)
    assert set(entries[load]) == {"source", "ttir", "ttgir", "llir", "ptx", "sass"}
    sass = doc["stages"]["sass"].splitlines()
    assert any("LDG.E.128" in sass[n - 1] for n in entries[load]["sass"])


def test_dump_line_shows_only_what_that_line_became(cli):
    out = cli("dump", "sample:matmul", "-t", "sm90", "--line", "35", "--stage", "ttgir,sass").stdout
    assert "ttng.warp_group_dot" in out and "HGMMA" in out
    assert "tt.store" not in out and "STG" not in out
    assert "from Python line 35" in out
    ranged = cli("dump", "sample:matmul", "-t", "sm90", "--lines", "33-35", "--stage", "ttir").stdout
    assert "tt.load" in ranged and "tt.dot" in ranged and "from Python lines 33-35" in ranged


def test_dump_says_when_a_stage_has_nothing_from_a_line(cli):
    out = cli("dump", "sample:matmul", "-t", "sm90", "--line", "17", "--stage", "source,ttir").stdout  # a comment
    assert "no line of TTIR (Triton IR) comes from Python line 17" in out


def test_annotate_and_keep_loc(cli):
    out = cli("dump", "sample:vector_add", "-t", "sm90", "--stage", "ttir", "--annotate").stdout
    assert "py 21 │" in out and "loc(" not in out and "#loc" not in out
    kept = cli("dump", "sample:vector_add", "-t", "sm90", "--stage", "ttir", "--keep-loc").stdout
    assert "loc(#loc" in kept


def test_compare_aligns_stages_by_python_line(cli):
    out = cli("compare", "sample:vector_add", "-t", "sm90", "--stages", "source,ttgir,sass").stdout
    block = out[out.index("line 21: x = tl.load(x_ptr + offsets, mask=mask)") : out.index("line 22:")]
    assert "tt.load" in block and "LDG.E.128" in block and "tt.store" not in block
    assert "--wrap folds them" in out
    one = cli("compare", "sample:vector_add", "-t", "sm90", "--stage", "ttgir,ptx", "--line", "23").stdout
    assert "arith.addf" in one and "add.f32" in one and "line 21" not in one
    # --stage and --stages are one flag in every command that takes it
    dumped = cli("dump", "sample:vector_add", "-t", "sm90", "--stages", "ptx", "--line", "23").stdout
    assert "add.f32" in dumped and "arith.addf" not in dumped


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["dump", "sample:matmul", "-t", "sm90", "--line", "500"], "line 500 is outside matmul_kernel"),
        (["dump", "sample:matmul", "-t", "sm90", "--lines", "3-x"], "--lines expects A-B"),
        (["compare", "sample:matmul", "-t", "gfx942", "--stages", "ttgir,sass"], "stage 'sass' is not produced"),
        (["compare", "sample:matmul", "-t", "sm90", "--stages", "source,ttir,ttgir,ptx"], "2 or 3 stages"),
        (["compare", "sample:matmul", "-t", "sm90", "--stages", "ptx"], "2 or 3 stages"),
    ],
)
def test_bad_line_and_stage_requests(cli, args, message):
    assert message in cli(*args, expect=2).stderr


# --- the parsers on their own ------------------------------------------------------------------


def test_mlir_locations_resolve_every_form():
    text = "\n".join(
        [
            "%0 = tt.load %p loc(#loc3)",
            '%1 = arith.addf %0, %0 loc(fused[#loc1, "b.py":4:2])',
            "%2 = tt.splat %1 loc(callsite(#loc1 at #loc2))",
            "tt.return loc(unknown)",
            '#loc1 = loc("a.py":7:1)',
            '#loc2 = loc("a.py":30:5)',
            '#loc3 = loc("x"(#loc2))',
        ]
    )
    assert mlir_locations.parse(text) == {
        1: (("a.py", 30),),
        2: (("a.py", 7), ("b.py", 4)),
        3: (("a.py", 7), ("a.py", 30)),
    }
    assert mlir_locations.without_locations('%0 = tt.load %p loc("x"(#loc2)) loc(#loc3)') == "%0 = tt.load %p"


def test_asm_and_sass_and_llvm_parsers():
    ptx = '.loc 1 9 4 // k.py:9:4 @[ k.py:17:2 ]\nld.global.b32 %r1, [%rd1];\n.file 1 "/d/k.py"\n'
    assert asm_loc.parse_ptx(ptx) == {2: (("/d/k.py", 9), ("/d/k.py", 17))}
    sass = '//## File "/d/k.py", line 9 inlined at "/d/k.py", line 17\n   /*0010*/ LDG.E R0, desc[UR4][R2.64] ;\n'
    assert sass_lines.parse(sass) == {2: (("/d/k.py", 9), ("/d/k.py", 17))}
    llvm = "\n".join(
        [
            "%1 = load float, ptr %0, !dbg !5",
            '!1 = !DIFile(filename: "k.py", directory: "/d")',
            '!2 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 3)',
            "!5 = !DILocation(line: 9, column: 4, scope: !2, inlinedAt: !6)",
            "!6 = !DILocation(line: 17, column: 2, scope: !2)",
        ]
    )
    assert llvm_debug.parse(llvm) == {1: (("/d/k.py", 9), ("/d/k.py", 17))}


_REAL = {}


def _real_texts():
    if not _REAL:
        for target in ("sm90", "gfx942"):
            c = compiled("sample:fused_attention", target)
            _REAL.update({(target, s): t for s, t in c.stages.items()})
    return _REAL


_PARSE = {stage: info.locations for stage, info in STAGES.items() if info.locations}


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_parsers_survive_truncated_and_garbled_input(data):
    texts = _real_texts()
    key = data.draw(st.sampled_from(sorted(k for k in texts if k[1] in _PARSE)))
    text = texts[key]
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    piece = text[start:end]
    noise = data.draw(st.text(alphabet='()[]<>"#:,!@ loc.fusedcallsite0123456789\n', max_size=40))
    cut = data.draw(st.integers(0, len(piece)))
    garbled = piece[:cut] + noise + piece[cut:]
    result = _PARSE[key[1]](garbled)
    assert isinstance(result, dict)
    assert all(
        isinstance(n, int) and all(isinstance(line, int) for _, line in sources) for n, sources in result.items()
    )


def test_a_copied_kernel_file_maps_to_the_copy(tmp_path):
    # Triton caches by source text: the copy must not come back with the original's locations.
    original = compiled("sample:vector_add", "sm90")
    copy = tmp_path / "vector_add.py"
    copy.write_text(open(original.kernel.file).read())
    moved = compiled(str(copy), "sm90")
    assert {file for file, _ in linemap.python_lines(moved)} == {str(copy)}
