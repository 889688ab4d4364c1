"""Why is my compile slow: `passes --time`, `explain --compile-time`, and the stage times of `dump`
and `diff`, on real compiles. Timings are compared with each other, never with fixed numbers."""

from __future__ import annotations

import functools
import json

from conftest import KERNELS, make_request
from typer.testing import CliRunner

from tritonscope.analysis.compile_time import GROWTH_STAGES, line_growth, most_grown
from tritonscope.app.explain import explain
from tritonscope.app.passes import passes as run_passes
from tritonscope.cli.runner import app
from tritonscope.core.stages import Stage
from tritonscope.parsers import timing_report

UNROLLED = str(KERNELS / "static_unroll.py")
UNROLLED_LINE = next(
    n for n, text in enumerate((KERNELS / "static_unroll.py").read_text().splitlines(), 1) if "UNROLLED" in text
)
STAGES = ["ttir", "ttgir", "llir", "ptx", "cubin"]


@functools.cache
def _timed(n: int, block: int = 128):
    request = make_request(UNROLLED, "sm90", constexprs=(f"N={n}", f"BLOCK={block}"))
    return run_passes(request, None, False, 600, timed=True)


@functools.cache
def _explained(n: int):
    request = make_request(UNROLLED, "sm90", constexprs=(f"N={n}", "BLOCK=1024"))
    return explain(request, what_if=False, live=False, compile_time=True)


def test_the_steps_add_up_to_the_whole_compile():
    """Every step a timer measured (front end, each MLIR pass, the verifier, the LLVM calls, ptxas,
    the cache writes) adds up to within 10% of the compile's time, measured around it."""
    for n in (16, 64):  # a compile of 0.2 s and more: the unmeasured set-up between steps stays small
        timing = _timed(n).timing
        for _ in range(2):  # a loaded machine stretches that set-up (0.88 once in CI): timed again
            if 0.9 <= timing.measured / timing.total <= 1.1:
                break
            timing = _timed.__wrapped__(n).timing
        steps = [(s.stage, s.name, round(s.seconds * 1000, 1)) for s in timing.steps if s.kind != "mlir"]
        assert 0.9 <= timing.measured / timing.total <= 1.1, (n, timing.measured, timing.total, steps)
        assert [name for name, _ in timing.stages] == STAGES
        kinds = {s.kind for s in timing.steps}
        assert {"front end", "mlir", "llvm", "tool", "store"} <= kinds
        assert [s.name for s in timing.steps if s.kind == "tool"] == ["ptxas"]
        assert {s.name for s in timing.steps if s.kind == "llvm"} >= {
            "MLIR to LLVM IR",
            "LLVM -O3",
            "LLVM code generation",
        }


def test_each_timed_pass_is_joined_to_its_row_of_the_pass_table():
    result = _timed(8)
    records = {r.index: r for r in result.records}
    joined = [s for s in result.timing.steps if s.kind == "mlir" and s.index is not None]
    assert len(joined) >= 0.8 * len(result.records)  # the two compiles run the same pipeline
    assert all(records[s.index].label == s.name for s in joined)
    assert [s.index for s in joined] == sorted(s.index for s in joined)
    lowering = next(s for s in joined if s.name == "convert-triton-gpu-to-llvm")
    assert lowering.stage == "llir" and lowering.ops[1] > lowering.ops[0] and lowering.lines[1] > lowering.lines[0]
    slowest = result.timing.slowest()
    assert len(slowest) == 5 and slowest[0].seconds >= slowest[-1].seconds
    assert result.timing.llvm_passes and result.timing.llvm_passes[0][1] >= result.timing.llvm_passes[-1][1]


def test_the_ir_the_passes_work_through_grows_with_the_unroll():
    small, large = (_timed(n) for n in (4, 32))
    first = [next(s for s in r.timing.steps if s.index == 1) for r in (small, large)]
    assert first[1].ops[0] > 4 * first[0].ops[0]


def test_explain_names_the_unrolled_line_and_it_scales_with_n():
    small, large = (_explained(n) for n in (4, 32))
    for result in (small, large):
        assert result.growth[0].line == UNROLLED_LINE and "tl.load" in result.growth[0].code
        assert most_grown(result.growth).line == UNROLLED_LINE
        assert [name for name, _ in result.compilation.stage_seconds] == ["front end", *STAGES]
    counts = [r.growth[0].counts for r in (small, large)]
    for stage in GROWTH_STAGES:
        assert counts[1][stage] >= 6 * counts[0][stage], stage  # 8 times the unroll
    assert counts[1][Stage.LLIR] > counts[1][Stage.TTIR]  # 8 elements per thread: it grows as it is lowered
    assert line_growth(large.compilation) == large.growth


def _cli80(*args: str, expect: int = 0):
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "80"})
    assert result.exit_code == expect, result.stdout + result.stderr
    return result.stdout


def test_passes_time_fits_80_columns_and_json_carries_it():
    out = _cli80("passes", UNROLLED, "-t", "sm90", "-c", "N=16", "-c", "BLOCK=128", "--time")
    assert all(len(line) <= 80 for line in out.splitlines())
    for text in ("compiled in", "ttgir stage", "tritongpu-coalesce", "ptxas", "LLVM -O3", "◀"):
        assert text in out, text
    doc = json.loads(_cli80("passes", UNROLLED, "-t", "sm90", "-c", "N=16", "-c", "BLOCK=128", "--time", "--json"))
    timing = doc["timing"]
    assert [s["stage"] for s in timing["stages"]] == STAGES
    assert abs(sum(s["seconds"] for s in timing["steps"] if s["kind"] != "other") - timing["measured_seconds"]) < 1e-6
    assert all(doc["passes"][s["index"] - 1]["name"] in s["name"] for s in timing["steps"] if s["index"])
    assert len(timing["slowest"]) == 5
    numbered = {s["index"] for s in timing["steps"] if s["index"]}
    skipped = [n for n in range(1, max(numbered) + 1) if n not in numbered]
    if skipped:  # numbers the table skips are said, not left as gaps
        assert "not timed apart" in out and f"passes {skipped[0]}" in " ".join(out.split())
    else:
        assert "not timed apart" not in out


def test_explain_compile_time_in_the_terminal_and_json():
    args = ("explain", UNROLLED, "-t", "sm90", "-c", "N=16", "-c", "BLOCK=1024", "--compile-time")
    out = _cli80(*args)
    assert all(len(line) <= 80 for line in out.splitlines())
    said = " ".join(out.split())
    assert "the stages took " in out and "; the slowest: " in out and f"most operations: line {UNROLLED_LINE}, " in said
    assert f"from unrolling `tl.static_range(N)` at line {UNROLLED_LINE - 1} (16 copies)" in said
    assert "grows most as it is lowered" not in said  # the same line: said once
    doc = json.loads(_cli80(*args, "--json"))
    assert list(doc["compile_time"]["stage_seconds"]) == ["front end", *STAGES]
    assert doc["compile_time"]["lines"][0]["line"] == UNROLLED_LINE
    assert doc["compile_time"]["lines"][0]["unrolled_by"] == [
        {"line": UNROLLED_LINE - 1, "loop": "tl.static_range(N)", "copies": 16}
    ]
    assert doc["compile_time"]["most_operations"]["line"] == UNROLLED_LINE


NESTED = """\
import triton
import triton.language as tl


@triton.jit
def nested(x_ptr, out_ptr, BLOCK: tl.constexpr, STEPS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(STEPS):
        for j in tl.static_range(1, 5, 2):
            acc += tl.load(x_ptr + offs + (i * 4 + j) * BLOCK) * (i + j)
    tl.store(out_ptr + offs, acc)
"""


def test_the_headline_names_the_dominant_line_and_the_loops_that_unrolled_it(tmp_path):
    """Issue 55 item 4: a body unrolled at a small tile grows little as it is lowered, while a line of
    one operation doubles; the headline named that line (`grows most as it is lowered: line 7 (1 TTIR
    → 1 TTGIR → 2 LLIR)`), not the one whose operations fill the IR."""
    kernel = tmp_path / "nested.py"
    kernel.write_text(NESTED)
    out = _cli80("explain", str(kernel), "-t", "sm90", "-c", "BLOCK=128", "-c", "STEPS=16", "--compile-time")
    said = " ".join(out.split())
    assert "most operations: line 11, " in said and "TTIR operations (9" in said  # 90% and more of them
    assert "from unrolling `tl.static_range(1, 5, 2)` at line 10 (2 copies) inside `tl.static_range(STEPS)` at " in (
        said
    )
    assert "at line 9 (16 copies)" in said and "grows most as it is lowered: line 7" not in said


def test_dump_and_diff_show_the_time_of_each_stage(monkeypatch):
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")  # a compile Triton's cache serves has no stage times
    args = (UNROLLED, "-t", "sm90", "-c", "BLOCK=128")
    doc = json.loads(_cli80("dump", *args, "-c", "N=4", "--json"))
    assert list(doc["stage_seconds"]) == ["front end", *STAGES]
    assert "stage times" in _cli80("dump", *args, "-c", "N=4", "--stage", "ttir")
    out = _cli80("diff", *args, "--vary", "N=4,32", "--stage", "ttir")
    assert "compile time per stage" in out and "× [0]" in out and "1.00x" in out


def test_the_timing_report_parser_gives_each_pass_its_own_time():
    text = "\n".join(
        [
            "// tritonscope-stage ttir",
            "                         ... Execution time report ...",
            "  Total Execution Time: 0.0100 seconds",
            "  ----Wall Time----  ----Name----",
            "    0.0040 ( 40.0%)  Inliner",
            "    0.0001 (  1.0%)    (A) CallGraph",
            "    0.0030 ( 30.0%)    Canonicalizer",
            "    0.0020 ( 20.0%)  'tt.func' Pipeline",
            "    0.0020 ( 20.0%)    CSE",
            "    0.0010 ( 10.0%)  Rest",
            "    0.0100 (100.0%)  Total",
            "// tritonscope-stage ptx",
            "                          Pass execution timing report",
            "   ---User Time---   --System Time--   --User+System--   ---Wall Time---  --- Name ---",
            "   0.0005 ( 50.0%)   0.0001 ( 50.0%)   0.0006 ( 50.0%)   0.0007 ( 70.0%)  NVPTX DAG->DAG Pattern",
            "   0.0005 ( 50.0%)   0.0001 ( 50.0%)   0.0006 ( 50.0%)   0.0003 ( 30.0%)  Module Verifier",
            "   0.0010 (100.0%)   0.0002 (100.0%)   0.0012 (100.0%)   0.0010 (100.0%)  Total",
        ]
    )
    mlir, llvm = timing_report.parse(text)
    assert (mlir.kind, mlir.stage, mlir.total, mlir.rest) == ("mlir", "ttir", 0.01, 0.001)
    assert [(p.name, round(p.seconds, 4), p.depth) for p in mlir.passes] == [
        ("Inliner", 0.001, 0),  # less the Canonicalizer nested in it; the analysis stays in
        ("Canonicalizer", 0.003, 1),
        ("CSE", 0.002, 1),
    ]
    assert (llvm.kind, llvm.stage, llvm.total) == ("llvm", "ptx", 0.001)
    assert [(p.name, p.seconds) for p in llvm.passes] == [
        ("NVPTX DAG->DAG Pattern", 0.0007),
        ("Module Verifier", 0.0003),
    ]


def test_a_line_with_no_llvm_ir_has_no_growth_rather_than_zero():
    """vector_add's `def` line has a TTIR operation and no LLVM IR instruction: its x was 0.0 in the
    table (as if it shrank) where the JSON said null (h19c)."""
    from conftest import compiled

    growth = {g.line: g for g in line_growth(compiled("sample:vector_add", "sm90"))}
    kept = [g for g in growth.values() if Stage.TTIR in g.counts and Stage.LLIR not in g.counts]
    assert kept and all(g.growth is None for g in kept)
    assert all(g.growth > 0 for g in growth.values() if g.counts.get(Stage.TTIR) and g.counts.get(Stage.LLIR))
