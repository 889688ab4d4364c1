"""Renderers on fixed results, with no compile: what each format shows of a result it is given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tritonscope.analysis.diffing import StageDiff
from tritonscope.analysis.layouts import ownership, parse
from tritonscope.analysis.passes import PassRecord
from tritonscope.core.model import (
    Compilation,
    InstructionMix,
    KernelSpec,
    Occupancy,
    Param,
    ParamKind,
    Resources,
    Variant,
    VariantRequest,
)
from tritonscope.core.stages import Stage
from tritonscope.core.values import TypeName
from tritonscope.render.files import FilesRenderer
from tritonscope.render.html import HtmlReport
from tritonscope.render.json import JsonRenderer
from tritonscope.render.terminal.base import Terminal
from tritonscope.render.terminal.bench import BenchView
from tritonscope.render.terminal.diff import DiffView
from tritonscope.render.terminal.dump import DumpView
from tritonscope.render.terminal.grid import GridView
from tritonscope.render.terminal.layout import LayoutView
from tritonscope.render.terminal.listing import ListingView
from tritonscope.render.terminal.passes import PassesView
from tritonscope.results.bench import BenchResult, Measurement, Peak
from tritonscope.results.catalog import KernelList
from tritonscope.results.diff import DiffResult, VariantOutcome
from tritonscope.results.dump import CompareResult, DumpResult
from tritonscope.results.grid import Access, GridResult, Program
from tritonscope.results.layout import LayoutResult
from tritonscope.results.passes import PassesResult

SOURCE = "@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n    x = tl.load(x_ptr + tl.arange(0, BLOCK))\n"
TTIR = 'module {\n  %0 = tt.load %x_ptr : tensor<64x!tt.ptr<f32>> loc(#loc3)\n}\n#loc3 = loc("/k.py":3:8)\n'
SASS = '        /*0000*/  LDG.E.128 R4, desc[UR4][R2.64] ;\n        //## File "/k.py", line 3\n'
KERNEL = KernelSpec(
    name="k[/x]",  # rich markup in a user's name must show as it is
    file="/k.py",
    line=2,
    first_line=1,
    source=SOURCE,
    params=(
        Param("x_ptr", ParamKind.POINTER, "*fp32", "body"),
        Param("BLOCK", ParamKind.CONSTEXPR, None, "annotation"),
    ),
)
MIX = InstructionMix(1, {128: 1}, {}, 0, 0, 0, 0, 0, 0, 0)
RESOURCES = Resources(40, 0, 0, 0, 0, Occupancy(12, 48, 64, "registers"), instructions=MIX)


def _compilation(block: int = 64, registers: int = 40) -> Compilation:
    variant = Variant(
        kernel="k[/x]",
        file="/k.py",
        target="sm90",
        constexprs={"BLOCK": block, "MODE": "mean", "DT": TypeName("fp16"), "SCALE": float("nan")},
        signature={"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        hints={"x_ptr": "D"},
        arguments={"x_ptr": TypeName("*fp32"), "n": 4096},
        options={"num_warps": 4},
        inferred={"x_ptr": "*fp32"},
    )
    resources = Resources(registers, 0, 0, 0, 0, Occupancy(12, 48, 64, "registers"), instructions=MIX)
    stages = {Stage.SOURCE: SOURCE, Stage.TTIR: TTIR, Stage.SASS: SASS}
    line_map = {Stage.TTIR: {2: (("/k.py", 3),)}, Stage.SASS: {1: (("/k.py", 3),)}}
    return Compilation(
        KERNEL, variant, stages, b"\x7fELF", "cubin", {"num_warps": 4}, resources, 0.5, "3.6.0", line_map=line_map
    )


DUMP = DumpResult(_compilation(), (Stage.SOURCE, Stage.TTIR, Stage.SASS))


def test_dump_view_shows_header_resources_and_stages_without_reading_markup():
    out = DumpView(Terminal(100, False)).render(DUMP)
    assert "k[/x]" in out and "sm_90" in out and "x_ptr: *fp32 (divisible by 16; inferred" in out
    assert "registers" in out and "40" in out and "limited by registers" in out and "1x128b" in out
    assert "TTIR (Triton IR)" in out and "tt.load" in out and "loc(" not in out  # locations dropped
    assert "LDG.E.128" in out and "//## File" not in out
    assert "\x1b[" not in out  # no colour codes when colour is off


def test_the_header_wraps_a_long_kernel_path_at_80_columns():
    """A path longer than the header's column wraps, whole, where it must (an installed package's
    site-packages path, as a newcomer's first `dump sample:...` shows it); never an ellipsis."""
    from dataclasses import replace

    long = "/tmp/qs-é/v/lib/python3.11/site-packages/tritonscope/sample_kernels/vector_add_of_a_long_name.py"
    c = _compilation()
    out = DumpView(Terminal(80, False)).render(DumpResult(replace(c, kernel=replace(c.kernel, file=long)), ()))
    rows = [line.strip("│ ") for line in out.splitlines()[1:6]]
    assert "…" not in out and max(map(len, out.splitlines())) <= 80
    assert f"({long}:2)" in "".join(row.removeprefix("kernel").strip() for row in rows)


def test_dump_view_with_a_line_filter_and_colour():
    result = DumpResult(_compilation(), (Stage.TTIR,), frozenset({("/k.py", 2)}))
    out = DumpView(Terminal(100, True)).render(result)
    assert "no line of TTIR (Triton IR) comes from Python line 2" in out and "\x1b[" in out


def test_json_has_the_envelope_and_strict_values():
    doc = json.loads(JsonRenderer().render(DUMP))
    assert (doc["schema"], doc["kind"], doc["tool"]["name"]) == (2, "dump", "tritonscope")
    assert doc["variant"]["constexprs"] == {"BLOCK": 64, "MODE": "mean", "DT": "fp16", "SCALE": "nan"}
    assert doc["variant"]["arguments"] == {"x_ptr": "*fp32", "n": 4096} and doc["variant"]["inferred"]
    assert doc["line_map"] == [{"file": "/k.py", "line": 3, "stages": {"ttir": [2], "sass": [1]}}]
    assert json.loads(JsonRenderer().render(CompareResult(DUMP.compilation, DUMP.stages)))["kind"] == "compare"


def test_files_renderer_names_every_stage_the_binary_and_the_report():
    files = FilesRenderer().render(DUMP)
    assert sorted(files) == ["k[/x].cubin", "k[/x].sass", "k[/x].source.py", "k[/x].ttir", "report.json"]
    assert json.loads(files["report.json"])["stages"]["ttir"] == TTIR


def test_html_escapes_the_kernel_and_links_lines():
    page = HtmlReport().render(DUMP)
    assert page.startswith("<!DOCTYPE html>") and "k[/x]" in page and "<script>" in page
    with pytest.raises(TypeError):
        HtmlReport().render(object())


def _diff_result() -> DiffResult:
    a, b = _compilation(64, 40), _compilation(128, 64)
    request = VariantRequest(file="/k.py")
    outcomes = (
        VariantOutcome({"BLOCK": "64"}, request, a),
        VariantOutcome({"BLOCK": "128"}, request, b),
        VariantOutcome({"BLOCK": "7"}, request, None, "arange's range must be a power of 2"),
    )
    diff = StageDiff(Stage.TTIR, 0, 1, ("%0 = tt.load x : tensor<64xf32>",), ("%0 = tt.load x : tensor<128xf32>",))
    return DiffResult(outcomes, (diff,))


def test_diff_view_marks_rows_that_differ_and_failed_variants():
    out = DiffView(Terminal(120, False)).render(_diff_result())
    assert "BLOCK=128" in out and "64" in out and "arange's range must be a power of 2" in out
    assert "tensor<128xf32>" in out and "tensor<64xf32>" in out
    doc = json.loads(JsonRenderer().render(_diff_result()))
    assert doc["kind"] == "diff" and [v["ok"] for v in doc["variants"]] == [True, True, False]
    assert doc["diffs"][0]["changed"] and doc["variants"][1]["resources"]["registers"] == 64


def test_grid_view_lists_few_programs_without_failing():
    programs = tuple(Program(i, (i, 0, 0), [], [Access("out", [[i * 64, i * 64 + 64]], 64)]) for i in range(3))
    result = GridResult(_compilation().variant, (3,), programs)
    out = GridView(Terminal(80, False)).render(result)
    assert "3 programs" in out and "out[128:192]" in out
    assert json.loads(JsonRenderer().render(result))["programs"][2]["stores"][0]["runs"] == [[128, 192]]


def test_layout_view_draws_lanes_within_80_columns():
    layout = parse(
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>"
    )
    bases = {"register": [], "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], "warp": []}
    result = LayoutResult(layout, ownership(bases, (1, 32)), None)
    out = LayoutView(Terminal(120, False)).render(result)
    assert " 31 " in out and "1x32 elements over 1 warps x 32 lanes" in out
    assert json.loads(JsonRenderer().render(result))["owners"]["0,5"] == [[0, 5, 0]]


def test_passes_view_and_json():
    record = PassRecord(1, "tritongpu-coalesce", "TritonGPUCoalesce", "TTGIR", 1, 1, True, 2, 1, (), "a\n", "b\n")
    result = PassesResult(_compilation().variant, (record,), None, None, "3.6.0")
    out = PassesView(Terminal(120, False)).render(result)
    assert "tritongpu-coalesce" in out and "1 MLIR passes, 1 changed the IR" in out
    doc = json.loads(JsonRenderer().render(result))
    assert doc["kind"] == "passes" and doc["passes"][0]["added"] == 2 and doc["triton_version"] == "3.6.0"


def test_listing_and_bench_views():
    listing = KernelList(Path("/k.py"), (KERNEL,), {"n": 4096})
    out = ListingView(Terminal(120, False)).render(listing)
    assert "k[/x]" in out and "x_ptr" in out and "inferred from the body" in out
    assert json.loads(JsonRenderer().render(listing))["kernels"][0]["name"] == "k[/x]"
    peak = Peak(3000.0, 700.0)
    bench = BenchResult("sample:vector_add", peak, (Measurement(4096, {}, 1e-7, True, 0.01, 0.02, 1500.0, 0.0, 26, 0),))
    out = BenchView(Terminal(160, False)).render(bench)
    assert "1,500" in out and "50%" in out and "2.00x" in out
    assert json.loads(JsonRenderer().render(bench))["results"][0]["gbps"] == 1500.0


def test_json_of_a_line_filter_keeps_only_those_lines():
    result = DumpResult(_compilation(), (Stage.TTIR,), frozenset({("/k.py", 3)}))
    doc = json.loads(JsonRenderer().render(result))
    assert doc["selected_lines"] == [3] and [e["line"] for e in doc["line_map"]] == [3]
    result = DumpResult(_compilation(), (Stage.TTIR,), frozenset({("/k.py", 2)}))
    assert json.loads(JsonRenderer().render(result))["line_map"] == []
