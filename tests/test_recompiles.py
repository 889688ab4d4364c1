"""`recompiles DIR/`: each of Triton's specialization rules on a small kernel made to trigger it
after the program's warmup (tests/kernels/recompile_program.py), the cause's wording, the launch
behind each compile, the autotuner's configs told apart, torch.compile's failed guard; and the fixes,
compiled: the two launches then share one variant. The captures are real `trace --target sm90`s."""

from __future__ import annotations

import ast
import json
import os
import re
import sys

import pytest
from conftest import KERNELS, traced

PROGRAM = KERNELS / "recompile_program.py"


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    from conftest import Cli

    out = tmp_path_factory.mktemp("recompiles") / "run"
    said = Cli()("trace", "--target", "sm90", "-o", out, "--", sys.executable, PROGRAM, "--torch").stderr
    (out.parent / "trace.stderr").write_text(said)
    return out


@pytest.fixture(scope="module")
def document(capture):
    from conftest import Cli

    return json.loads(Cli()("recompiles", capture, "--after", "warmup", "--json").stdout)


def kernel(document, name):
    return next(k for k in document["kernels"] if k["name"] == name)


def only_kernel(tmp_path, cli, program: str) -> dict:
    """The one kernel of `recompiles --json` on a capture of PROGRAM (a script's text)."""
    (found,) = json.loads(cli("recompiles", traced(tmp_path, cli, program), "--json").stdout)["kernels"]
    return found


def late(document, name):
    """The kernel's one compile after the warmup, with its causes' sentences."""
    (variant,) = [v for v in kernel(document, name)["variants"] if "warmup" in v["marks_passed"]]
    return variant, [c["said"] for c in variant["causes"]]


def line_of(text: str) -> int:
    """The line of recompile_program.py that starts with TEXT."""
    return next(n for n, line in enumerate(PROGRAM.read_text().splitlines(), 1) if line.strip().startswith(text))


def test_divisible_by_16_then_not_named_with_the_value_and_the_launch_line(document):
    variant, said = late(document, "divisible_kernel")
    assert said == ["`n_elements` was divisible by 16 in variant 1 and is not in variant 2 (n_elements=4099)"]
    assert variant["role"] == "recompile" and variant["compared_with"] == 1
    assert variant["launch"]["where"] == f"recompile_program.py:{line_of('k.divisible_kernel[')}"
    assert variant["launch"]["values"] == "n_elements=4099" and variant["compile_seconds"] > 0


def test_an_argument_equal_to_1(document):
    _, said = late(document, "one_kernel")
    assert said == ["`n_rows` equals 1 in variant 2, so Triton made it a constant"]


def test_a_pointer_no_longer_aligned(document):
    variant, said = late(document, "aligned_kernel")
    assert said == [
        "`x_ptr` was 16-byte aligned in variant 1 and is not in variant 2 (it starts 1 element into its storage)"
    ]
    # the launch's value behind it: where the tensor starts, not its dtype (h25a: `x_ptr.dtype=float32`)
    assert variant["launch"]["values"] == "x_ptr.storage_offset=1", variant["launch"]


def test_none_for_an_optional_pointer(document):
    _, said = late(document, "bias_kernel")
    assert said == ["`bias_ptr` is None in variant 2 (a None is a constant); variant 1 had *fp32"]


def test_a_new_dtype(document):
    _, said = late(document, "dtype_kernel")
    assert said == [
        "a new dtype for `x_ptr`: *fp32 in variant 1, *fp16 in variant 2",
        "a new dtype for `out_ptr`: *fp32 in variant 1, *fp16 in variant 2",
    ]


def test_a_constexpr_from_next_power_of_2_of_an_argument(document):
    variant, said = late(document, "row_kernel")
    assert said == ["`BLOCK_SIZE` = `triton.next_power_of_2(n_cols)` changed 1024 → 2048 (n_cols=1000 → 1500)"]
    assert variant["launch"]["values"] == "n_cols=1500, BLOCK_SIZE=2048"


def test_an_integer_past_32_bits(document):
    _, said = late(document, "wide_kernel")
    assert said == ["`n` no longer fits in 32 bits in variant 2 (n=2147483653): i32 → i64"]


def test_other_launch_options(document):
    _, said = late(document, "warps_kernel")
    assert said == ["launched with num_warps=8 (4 in variant 1)"]


def test_the_autotuners_configs_are_told_apart_from_specialization(capture):
    from tritonscope.app.recompiles import recompiles

    result = recompiles(capture, fixes=False)  # without --after: every kernel compiled more than once
    tuned = next(k for k in result.kernels if k.name == "tuned_kernel")
    assert [(v.role, v.compared_with, v.causes) for v in tuned.variants] == [
        ("first", None, ()),
        ("autotune candidate", 1, ()),
    ]
    assert tuned.recompiles == 0 and "BLOCK=256, num_warps=8" not in tuned.variants[0].specialization
    assert "BLOCK=256" in tuned.variants[1].specialization and "num_warps=8" in tuned.variants[1].specialization
    # the candidate's line says the options it sets apart from #1 (two configs of one BLOCK at 8 and 16
    # warps read alike: h23a)
    assert tuned.variants[1].launch.values.endswith("num_warps=8"), tuned.variants[1].launch.values
    assert "num_warps" not in tuned.variants[0].launch.values


def test_a_torch_compile_guard_failure_and_the_kernels_it_brought(document):
    torch, twin = document["torch_compiles"]  # the guard's recompile; the twin function's first compile
    assert twin["said"].startswith("torch.compile compiled `<lambda>` for the first time"), twin["said"]
    assert twin["launch"]["values"] == "h: [4, 24, 32], a=2.0"  # a float argument too (it was left out: h20b)
    assert torch["said"] == (
        "torch.compile guard failed on `L['h'].size()[1]` (48; entry 0/0 expected 16): "
        "recompiled with a dynamic size (0/1)"
    )
    assert torch["reasons"] == ["0/0: tensor 'h' size mismatch at index 1. expected 16, actual 48"]
    assert torch["launch"]["values"] == "h: [4, 48, 32]" and torch["seconds"] > 0
    generated = kernel(document, torch["kernels"][0])
    assert generated["generated_by_torch_compile"] and torch["fix"]["code"] == "torch._dynamo.mark_dynamic(h, 1)"
    later = [v for v in generated["variants"] if v["torch_compile"] == "0/1"]
    assert later and all(v["launch"]["where"] == torch["launch"]["where"] for v in later)


def test_two_compiled_functions_kernels_of_one_name_are_two_kernels(capture, document):
    """A second function of the same body, compiled after the mark: its generated kernel has the first's
    name, and was said to be that kernel's recompile ("`n` was divisible by 16 ...", h20b)."""
    program = PROGRAM.read_text().splitlines()
    first = 1 + next(n for n, t in enumerate(program) if "compiled_torch = torch.compile(" in t)
    twin = 1 + next(n for n, t in enumerate(program) if "torch.compile(lambda h, a: h * a + 1.0, dynamic=False)" in t)
    generated = [k for k in document["kernels"] if k["generated_by_torch_compile"]]
    assert len({k["name"] for k in generated}) == 1 and len(generated) == 2
    by_line = {k["generated_for"]: k for k in generated}
    own, other = (
        by_line[f"`<lambda>` at recompile_program.py:{first}"],
        by_line[f"`<lambda>` at recompile_program.py:{twin}"],
    )
    assert own["recompiles"] == 1 and other["recompiles"] == 0
    assert {v["torch_compile"] for v in other["variants"]} == {"1/0"}
    # Inductor's files as the capture has them, not in the staging folder it was written in (h20b)
    assert all(k["file"].startswith(f"{capture.resolve()}/") for k in generated), [k["file"] for k in generated]


def test_compile_times_add_up_and_the_gate_counts_the_late_ones(document):
    for k in document["kernels"]:
        counted = [v["compile_seconds"] for v in k["variants"] if v["role"] != "same binary again"]
        assert k["compile_seconds"] == pytest.approx(sum(counted), abs=1e-3)
    # 8 rules, the torch kernel's 2 configs, the twin function's 2; its recompile and the twin's first compile
    assert document["after_mark"] == {"compiles": 12, "torch_compiles": 2}
    assert document["marks"] == [f"warmup at recompile_program.py:{line_of('tritonscope.mark(')}"]


def fix_of(document, name, code_part):
    return next(f for f in kernel(document, name)["fixes"] if code_part in f["code"])


def test_do_not_specialize_proved_with_its_cost(document):
    fix = fix_of(document, "divisible_kernel", "do_not_specialize")
    assert fix["code"] == '@triton.jit(do_not_specialize=["n_elements"])'
    assert fix["proved"] is True
    assert fix["proof"].startswith("n_elements=4096 and n_elements=4099 then specialize alike: one variant")
    assert "global load bits 128 → 32" in fix["cost"]  # the hint's worth: 4 floats per load
    assert fix_of(document, "one_kernel", "do_not_specialize")["proved"] is True


def test_a_fix_s_cost_is_said_against_each_variant_it_replaces(tmp_path):
    """n=1000 compiled first, then n=1024 with the hint: do_not_specialize's cost was measured against
    the first alone ("registers 24 → 22", a gain) and hid that the second loses its 128-bit accesses."""
    from conftest import Cli

    out = tmp_path / "second"
    Cli()("trace", "--target", "sm90", "-o", out, "--", sys.executable, KERNELS / "recompile_hint_second.py")
    (kernel,) = json.loads(Cli()("recompiles", out, "--json").stdout)["kernels"]
    (fix,) = [f for f in kernel["fixes"] if "do_not_specialize" in f["code"]]
    first, second = fix["cost"].splitlines()
    assert first.startswith("from n=1000: ") and "global load bits" not in first, fix["cost"]
    assert second.startswith("from n=1024: ") and "global load bits 128 → 32" in second, fix["cost"]
    text = Cli()("recompiles", out).stdout
    assert "cost from n=1024: " in text and "cost: from" not in text


def test_a_fix_of_two_arguments_is_proved_on_a_recompile_of_each(tmp_path, cli):
    """do_not_specialize=["n", "alpha"] was proved on n's recompile alone (alpha=2 on both sides): the
    claim that alpha=1 no longer compiles again was never launched (h25a)."""
    kernel = only_kernel(
        tmp_path,
        cli,
        "import torch, triton, triton.language as tl\n"
        "@triton.jit\ndef scale(x_ptr, n, alpha, BLOCK: tl.constexpr):\n"
        "    o = tl.arange(0, BLOCK)\n"
        "    tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < n) * alpha, mask=o < n)\n"
        "def go(n, alpha):\n    x = torch.randn(n, device='cuda')\n    scale[(1,)](x, n, alpha, BLOCK=1024)\n"
        "go(1000, 2)\ngo(1024, 2)\ngo(1000, 1)\n",
    )
    (fix,) = [f for f in kernel["fixes"] if f["code"].startswith("@triton.jit(do_not_specialize")]
    assert '"n"' in fix["code"] and '"alpha"' in fix["code"] and fix["proved"] is True
    first, second = fix["proof"].split("; and ")
    assert first.startswith("n=1000, alpha=2 and n=1024, alpha=2 then specialize alike"), fix["proof"]
    assert second.startswith("n=1000, alpha=2 and n=1000, alpha=1 then specialize alike"), fix["proof"]


def test_a_fixs_change_for_the_better_is_said_as_a_gain_not_as_a_cost(tmp_path, cli):
    """Bucketing BLOCK to 2048 for a row of 32: "cost: ... global load bits 32 → 128" listed a wider
    access as a cost (h25a); the narrower one, from BLOCK=1024, stays a plain cost."""
    kernel = only_kernel(
        tmp_path,
        cli,
        "import torch, triton, triton.language as tl\n"
        "@triton.jit\ndef rownorm(x_ptr, stride, n, BLOCK: tl.constexpr):\n"
        "    o = tl.arange(0, BLOCK)\n    p = x_ptr + tl.program_id(0) * stride + o\n"
        "    x = tl.load(p, mask=o < n, other=0.0)\n    tl.store(p, x / tl.sqrt(tl.sum(x * x, axis=0)), mask=o < n)\n"
        "def go(h):\n    t = torch.randn(4, h, device='cuda')\n"
        "    rownorm[(4,)](t, t.stride(0), h, BLOCK=min(2048, max(64, triton.next_power_of_2(h))))\n"
        "go(32)\ngo(1024)\n",
    )
    (fix,) = [f for f in kernel["fixes"] if f["kind"] == "constexpr" and f["proved"]]
    small, large = fix["cost"].splitlines()
    assert "global load bits 32 → 128 (a gain)" in small and "registers" in small, fix["cost"]
    assert "(a gain)" not in large.split("registers")[1].split(";")[0], fix["cost"]  # more registers: a cost


def test_a_bucketed_constexpr_and_the_same_options_proved(document):
    bucket = fix_of(document, "row_kernel", "BLOCK_SIZE=")
    assert bucket["code"] == "BLOCK_SIZE=max(2048, triton.next_power_of_2(n_cols))" and bucket["proved"] is True
    assert re.search(r"registers \d+ → \d+", bucket["cost"])  # the wider block costs registers
    assert re.search(r"occupancy [\d.]+% → [\d.]+%", bucket["cost"]), bucket["cost"]  # and what they cost the SM
    assert fix_of(document, "warps_kernel", "num_warps=4")["proved"] is True
    alignment = fix_of(document, "aligned_kernel", "do_not_specialize_on_alignment")
    assert alignment["proved"] is True and "x_ptr at element 0 and x_ptr at element 1" in alignment["proof"]
    # compiled with the pointer unaligned, as the fix launches it (it said a variant could not drop the hint)
    assert re.search(r"one variant \(x_ptr: \*fp32\)[;,] compiled", alignment["proof"]), alignment["proof"]
    assert alignment["cost"] and "not compiled" not in alignment["proof"]
    assert ".clone()" in alignment["said"]  # .contiguous() leaves a contiguous view where it starts


def test_what_cannot_share_a_variant_is_said_and_not_proved(document):
    for name in ("bias_kernel", "dtype_kernel", "wide_kernel"):
        (fix,) = kernel(document, name)["fixes"]
        assert fix["proved"] is None and fix["code"] == "" and "warm" in fix["said"]
    # a tensor in the warmup, None after it: the warmup needs a None launch (the text was the same either way)
    assert "with `bias_ptr` None in the warmup too" in kernel(document, "bias_kernel")["fixes"][0]["said"]


def test_a_heuristics_constexpr_and_a_switch_are_warmed_up_not_bucketed():
    """`EVEN = n % BLOCK == 0` (a @triton.heuristics) and `HAS_B = b is not None`: bucketing them into one
    value (`launch with EVEN=True`) reads out of bounds or drops the bias; each value is its own kernel."""
    from tritonscope.analysis import recompile_causes as rc
    from tritonscope.app.recompile_fixes import BUCKET, WARM, _how, compared_names

    source = (
        "@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})\n@triton.jit\n"
        "def k(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr, SCALE: tl.constexpr):\n    pass\n"
    )
    compared = compared_names(source)
    assert _how(rc.Cause(rc.CONSTEXPR, "EVEN", "3", "5", ""), compared) == WARM  # a heuristic's, whatever its values
    assert _how(rc.Cause(rc.CONSTEXPR, "HAS_B", "False", "True", ""), compared) == WARM
    assert _how(rc.Cause(rc.CONSTEXPR, "SCALE", "2", "4", ""), compared) == BUCKET


def test_do_not_specialize_applied_to_the_kernel_file_gives_one_variant(tmp_path, cli):
    """The fix as the user would write it, compiled for both launches: one binary."""
    source = (KERNELS / "recompile_kernels.py").read_text()
    fixed = tmp_path / "fixed_kernels.py"
    fixed.write_text(
        source.replace(
            "@triton.jit\ndef divisible_kernel", '@triton.jit(do_not_specialize=["n_elements"])\ndef divisible_kernel'
        )
    )
    hashes = []
    for n in (4096, 4099):
        out = cli("dump", fixed, "-k", "divisible_kernel", "-a", f"n_elements={n}", "-c", "BLOCK=1024", "--json")
        hashes.append(json.loads(out.stdout)["metadata"]["hash"])
    assert hashes[0] == hashes[1]


def test_trace_counts_the_compiles_apart_from_the_kernels(capture):
    """A kernel compiled again is one kernel and two binaries: trace says both numbers."""
    said = " ".join((capture.parent / "trace.stderr").read_text().split())
    records = [json.loads(line) for line in (capture / "kernels.jsonl").read_text().splitlines() if line.strip()]
    names = {r["name"] for r in records}
    assert len(records) > len(names) > 1
    assert f"captured {len(records)} compiles of {len(names)} kernels into {capture}: " in said, said
    assert f"and {len(names) - 6} more (`tritonscope cache list {capture}`)" in said  # six named: names run long


def test_the_terminal_view_fits_80_columns(capture):
    from typer.testing import CliRunner

    from tritonscope.cli.runner import app

    result = CliRunner().invoke(
        app, ["recompiles", str(capture), "--after", "warmup", "--no-prove"], env={"COLUMNS": "80"}
    )
    out = result.stdout
    assert result.exit_code == 0, out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "`n_elements` was divisible by 16 in variant 1" in out.replace("\n       ", " ")
    assert "after warmup: 12 kernel compiles, 2 torch.compile compiles" in out.replace("\n  ", " ")


def test_a_mark_no_program_passed_and_a_folder_that_is_no_capture(capture, cli, tmp_path):
    said = cli("recompiles", capture, "--after", "steady", expect=2).stderr
    assert "never passed a mark named 'steady' (its marks: warmup)" in said and "hint: give one of its marks" in said
    # a misspelled one is pointed at the mark meant (the hint said to call tritonscope.mark("warmup"))
    said = cli("recompiles", capture, "--after", "Warmpu", expect=2).stderr
    assert "hint: did you mean 'warmup'?" in said
    said = cli("recompiles", tmp_path, expect=2).stderr
    assert "not a capture made by `tritonscope trace`" in said
    # the program given where its capture is read, and an empty mark (said "no such directory", and
    # suggested tritonscope.mark(""): h20b)
    said = cli("recompiles", PROGRAM, expect=2).stderr
    assert "a file, where a capture of a run is read" in said and f"-- python {PROGRAM}" in said
    said = cli("recompiles", capture, "--after", " ", expect=2).stderr
    assert "--after needs a mark's name" in said
    os.mkfifo(tmp_path / "kernels.jsonl")  # a damaged one: read, it would wait for a writer
    said = cli("recompiles", tmp_path, expect=2).stderr
    assert "a damaged capture: its kernels.jsonl is not a regular file" in said


def test_a_hint_dropped_for_a_value_still_divisible_by_16_is_said_as_not_specialized():
    """torch.compile made a size dynamic: its second compile has no divisibility hint though the
    launch's xnumel=800 is 16 x 50; `was divisible by 16 ... and is not` was false."""
    from tritonscope.analysis.recompile_causes import causes
    from tritonscope.analysis.specialization import Param, Specialization

    a = Specialization((Param("x_ptr", "*fp32", hint="D"), Param("xnumel", "i32", hint="D")))
    b = Specialization((Param("x_ptr", "*fp32", hint="D"), Param("xnumel", "i32")))
    launch = {"params": ["x_ptr", "xnumel"], "args": [{"kind": "tensor"}, {"kind": "int", "value": 800}]}
    (found,) = causes(a, b, ([launch], [launch]))
    assert "though xnumel=800 is: that launch does not specialize it" in found.said
    odd = {**launch, "args": [{"kind": "tensor"}, {"kind": "int", "value": 801}]}
    (found,) = causes(a, b, ([launch], [odd]))
    assert found.said == "`xnumel` was divisible by 16 in variant 1 and is not in variant 2 (xnumel=801)"


def test_a_forecast_counts_the_torch_compiles_the_capture_made_after_the_mark(capture, cli):
    """--shapes over a capture that recompiled a torch.compile'd function after the mark: that entry is
    certain to come (it said "no compile to come" for torch.compile's, where it counted the kernels')."""
    document = json.loads(cli("recompiles", capture, "--after", "warmup", "--shapes", "n=1..8", "--json").stdout)
    seen = [e for f in document["torch_compiles"] for e in f["predicted"]]
    assert any(e["said"].startswith("compiled after the mark in this capture: ") for e in seen), document
    assert document["compiles"] >= len(seen) > 0


def test_a_guard_on_a_value_after_a_graph_break_names_the_users_function_not_dynamos():
    """After a graph break dynamo compiles the rest as torch_dynamo_resume_in_F_at_N, its inputs named
    ___stack0: mark_dynamic(___stack0, 0) was the advice, on a name the program has not."""
    from tritonscope.app.recompile_torch import fix
    from tritonscope.parsers.dynamo_guards import reason

    record = {
        "function": "torch_dynamo_resume_in_select_and_norm_at_13",
        "inputs": {"___stack0": {"kind": "tensor", "shape": [526, 64]}},
    }
    found = fix(record, [reason("2/0: tensor '___stack0' size mismatch at index 0. expected 502, actual 526")])
    assert found is not None and "___stack0" not in found.said and found.code == ""
    assert "select_and_norm computed before its graph break at line 13" in found.said
    assert "torch._dynamo.mark_dynamic(t, 0)" in found.said


def test_a_size_of_1_after_a_dynamic_entry_is_fixed_with_mark_unbacked_as_torch_2_11_says_its_bound():
    """torch 2.11 prints the 0/1 specialization's guard with both bounds (`2 <= x.size()[0] <= 2147483647`):
    it was not read, and the advice was mark_dynamic, which recompiles all the same."""
    from tritonscope.app.recompile_torch import fix, said
    from tritonscope.parsers.dynamo_guards import reason

    record = {"function": "f", "compile_id": "0/2", "inputs": {"x": {"kind": "tensor", "shape": [1, 64]}}}
    read = [
        reason("0/1: 2 <= x.size()[0] <= 2147483647  # return torch.relu(x @ y)  # due to 0/1 specialization"),
        reason("0/0: tensor 'x' size mismatch at index 0. expected 8, actual 1"),
    ]
    assert read[0].dim == ("x", 0) and read[0].expected == "2 <= x.size()[0]"
    found = fix(record, read)
    assert found is not None and found.code == "torch._dynamo.decorators.mark_unbacked(x, 0)"
    assert "(1; 2 <= x.size()[0]: a size of 1 is never made dynamic)" in said(record, read)
    twice = [reason(f"0/{n}: tensor 'x' dtype mismatch. expected Float, actual Half") for n in range(3)]
    assert said(record, twice).count("dtype mismatch") == 1  # each entry says the same: said once


def test_another_kernel_under_the_same_name_is_not_compared_parameter_by_parameter():
    """torch.compile names kernels per graph: two of one name may take other parameters. The fourth
    pointer of one is no "new dtype" of the other's."""
    from tritonscope.analysis.recompile_causes import causes
    from tritonscope.analysis.specialization import Param, Specialization

    four = (Param("in_ptr0", "*fp32"), Param("in_ptr1", "*fp32"), Param("in_ptr2", "*i64"), Param("out_ptr0", "*fp32"))
    five = (*four[:2], Param("in_ptr2", "*fp32"), Param("in_ptr3", "*i64"), four[3])
    found = causes(Specialization(four, source="def a(): pass"), Specialization(five, source="def b(): pass"), ([], []))
    assert [c.said for c in found] == [
        "another kernel under the same name: its source and parameters differ from variant 1's"
    ]


def test_a_64_bit_type_for_a_value_that_fits_in_32_bits_is_said_as_the_callers():
    from tritonscope.analysis.recompile_causes import causes
    from tritonscope.analysis.specialization import Param, Specialization

    before, after = Specialization((Param("xnumel", "i32"),)), Specialization((Param("xnumel", "i64"),))
    launch = [{"params": ["xnumel"], "args": [{"kind": "int", "value": 144}]}]
    (found,) = causes(before, after, ([], launch), ("variant 1", "variant 3"))
    assert (
        found.said
        == "`xnumel` is i64 in variant 3 (i32 in variant 1), though xnumel=144 fits in 32 bits: its caller typed it"
    )


def test_a_library_line_is_named_within_its_library():
    from tritonscope.core.source import short_path

    assert short_path("/v/lib/python3.11/site-packages/transformers/generation/utils.py") == (
        "transformers/generation/utils.py"
    )
    assert short_path("/home/me/serve.py") == "serve.py"


def test_a_constexpr_the_kernel_compares_against_is_made_an_argument_not_bucketed(tmp_path):
    """A row's length declared tl.constexpr and compared against in the mask (`col_offsets < n_cols`):
    each length compiles anew. Bucketing it (launching with a power of two, as a block size is) would
    read and write past every row, and was said `proved`; the fix is a plain argument, not proved.
    BLOCK, made from the length, is still bucketed."""
    from conftest import Cli

    out = tmp_path / "rows"
    Cli()("trace", "--target", "sm90", "-o", out, "--", sys.executable, KERNELS / "row_length_constexpr.py")
    (kernel,) = json.loads(Cli()("recompiles", out, "--json").stdout)["kernels"]
    fixes = {f["param"]: f for f in kernel["fixes"]}
    said = fixes["n_cols"]["said"]
    assert "`n_cols` is a constexpr the kernel compares against (`col_offsets < n_cols`)" in said, said
    assert "drop `: tl.constexpr`" in said and not fixes["n_cols"]["proved"], fixes["n_cols"]
    # the stride, equal to the length, was bucketed as the length's power of two: other rows addressed
    stride = fixes["stride"]
    assert stride["said"].startswith("`stride` is a constexpr that takes a stride") and not stride["proved"], stride
    assert fixes["BLOCK"]["said"].startswith("bucket `BLOCK` into fewer values: launch with BLOCK=max(8192, ")
    assert "triton.next_power_of_2(n_cols)" in fixes["BLOCK"]["said"]


def test_a_block_compared_inside_a_call_or_shaping_a_tensor_is_still_bucketed():
    """`mask = tl.arange(0, BLOCK) < n_cols` compares a tile of BLOCK against the length: BLOCK shapes
    the tile (a constexpr it must stay, bucketed), n_cols is the size (a plain argument)."""
    from tritonscope.app.recompile_fixes import compared_names

    source = (
        "def k(x_ptr, n_cols: tl.constexpr, BLOCK: tl.constexpr):\n"
        "    mask = tl.arange(0, BLOCK) < n_cols\n"
        "    if BLOCK > 64:\n"
        "        pass\n"
        "    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0, mask=mask)\n"
    )
    found = compared_names(source)
    assert found.get("n_cols") == "tl.arange(0, BLOCK) < n_cols" and "BLOCK" not in found, found


def test_a_late_entry_with_no_tensor_input_says_so():
    from tritonscope.analysis.dynamo_prediction import PredictedEntry

    assert (
        PredictedEntry("f", {}, {}, {}, seen=True).text
        == "compiled after the mark in this capture: no tensor input recorded"
    )


def test_a_guard_on_a_count_of_keyword_arguments_says_what_changed():
    """GPT-2's generate() recompiled on `len(kwargs) == 7`, said three times and never as what changed."""
    from tritonscope.app.recompile_torch import said
    from tritonscope.parsers.dynamo_guards import reason

    read = [reason(f"0/{n}: len(kwargs) == 7") for n in range(3)]
    assert said({"function": "forward", "compile_id": "0/3"}, read) == (
        "torch.compile compiled `forward` again: the call gave another number of keyword arguments than the "
        "entry's 7 (len(kwargs) == 7)"
    )


def test_a_librarys_function_is_not_called_the_programs_own():
    """transformers' `_can_use_grouped_mm` was "the program's own", its fix a mark_dynamic of an expert
    weight the program never holds."""
    from tritonscope.app.recompile_torch import fix
    from tritonscope.parsers.dynamo_guards import reason

    record = {"function": "_can_use_grouped_mm", "file": "/venv/lib/python3.11/site-packages/transformers/moe.py"}
    found = fix(record, [reason("0/0: tensor 'w' size mismatch at index 0. expected 8, actual 16")])
    assert found is not None and "the function is in transformers, which the program calls" in found.proof
    assert "_can_use_grouped_mm is in transformers: where `w` is not the program's, dynamic=True" in found.said


def test_a_keyword_inputs_size_1_guard_is_read_and_fixed_on_the_tensor_given_by_keyword():
    """The H200's own words for tests/programs/keyword_model.py called at L=1 after its warmup (torch
    2.11): `2 <= kwargs['input_ids'].size()[1]` was not read as a size, and no fix was given."""
    from tritonscope.app.recompile_torch import fix, said
    from tritonscope.parsers.dynamo_guards import reason

    read = [reason("0/0: 2 <= kwargs['input_ids'].size()[1]  # return F.linear(input, self.weight, self.bias)")]
    assert read[0].dim == ("kwargs['input_ids']", 1)
    record = {"function": "forward", "compile_id": "0/1"}
    assert said(record, read).startswith("torch.compile guard failed on `L['kwargs']['input_ids'].size()[1]`")
    found = fix(record, read)
    assert found is not None and found.code == "torch._dynamo.decorators.mark_unbacked(input_ids, 1)"


def test_a_late_entry_a_prediction_covers_is_not_counted_twice():
    """--shapes b=1..4,s=16..40 over a capture whose run compiled [4, 24, 32] and [1, 24, 32] after the
    mark: those are the predicted [dynamic, dynamic, 32] and [1, dynamic, 32], said again as "compiled
    after the mark" (4 compiles to come, where the run made 2)."""
    from tritonscope.analysis.dynamo_prediction import PredictedEntry
    from tritonscope.app.recompile_predict import _covers

    dynamic = PredictedEntry("f", {"x": (None, None, 32)}, {}, {})
    batch_one = PredictedEntry("f", {"x": (1, None, 32)}, {}, {})
    assert _covers(dynamic, {"x": (4, 24, 32)}) and _covers(batch_one, {"x": (1, 24, 32)})
    assert not _covers(dynamic, {"x": (1, 24, 32)})  # 1 stays static: another entry
    assert not _covers(dynamic, {"x": (4, 24, 64)}) and not _covers(dynamic, {"x": (4, 24)})
    assert not _covers(dynamic, {"y": (4, 24, 32)}) and not _covers(PredictedEntry("f", {}, {}, {}), {})


def test_dynamic_false_and_a_marked_dim_are_replayed_as_dynamo_compiles_them():
    """`@torch.compile(dynamic=False)` over batches (2,32), (4,32): --shapes predicted [1, dynamic] and
    [dynamic, dynamic] entries, which dynamo never makes so; each new shape is a static entry, until
    its recompile_limit. A dim the warmup's entry has dynamic (mark_dynamic) stays dynamic."""
    from tritonscope.analysis.dynamo_prediction import FrameModel, automatic_dynamic, predict_frame
    from tritonscope.analysis.size_expressions import size
    from tritonscope.app.recompile_predict import _static_asked
    from tritonscope.parsers.dynamo_guards import Guards

    static = [({"x": (2, 32)}, Guards({"x": (2, 32)}, ())), ({"x": (4, 32)}, Guards({"x": (4, 32)}, ()))]
    assert automatic_dynamic(static) is False
    grown = [static[0], ({"x": (4, 32)}, Guards({"x": (None, 32)}, ()))]
    assert automatic_dynamic(grown) is True
    source = ast.parse("import torch\n\n@torch.compile(dynamic=False)\ndef f(x):\n    return x\n")
    assert _static_asked(source, 4) and not _static_asked(ast.parse("def f(x):\n    return x\n"), 1)
    dims = {"x": (size("batch"), size("seq"))}
    seen = {("x", 0): frozenset({2, 4}), ("x", 1): frozenset({32})}
    frame = FrameModel("f", None, 4, dims, {"x": (4, 32)}, tuple(g for _, g in static), seen, automatic=False)
    entries = predict_frame(frame, {"batch": (1, 4), "seq": (32, 40)})
    assert entries and all(None not in e.sizes["x"] for e in entries)  # every entry static
    assert len(entries) == 6  # 2 in the warmup, 8 at most: then the function runs eagerly
    marked = FrameModel("f", None, 4, dims, {"x": (4, 32)}, (Guards({"x": (4, None)}, ()),), seen,
                        automatic=False, marked=frozenset({("x", 1)}))  # fmt: skip
    assert [e.sizes["x"] for e in predict_frame(marked, {"batch": (2, 3), "seq": (32, 40)})] == [(2, None), (3, None)]


def test_a_compiled_call_nested_in_another_is_the_one_read():
    """`print(n, tuple(f(x).shape))`: the input x was bound to tuple's argument (`f(x).shape`), so its dims
    were not known and --shapes n=... followed nothing; the call of the compiled function is read."""
    from tritonscope.analysis.launch_source import function_call
    from tritonscope.analysis.size_expressions import Expr

    tree = ast.parse("for n in (64, 128):\n    x = torch.randn(n, 32)\n    print(n, tuple(f(x).shape))\n")
    call = function_call(tree, 3, ["x"], "f")
    assert call is not None and ast.unparse(call.arguments["x"]) == "x"
    shaped = call.shape("x", frozenset({"n"}))
    assert shaped is not None and isinstance(shaped[0], Expr) and shaped[0].text == "n" and shaped[1].text == "32"


def test_a_compiled_calls_other_arguments_are_placed_by_the_functions_own_parameters():
    """`f3(torch.randn(n, 4), n)`: of the tensor x alone, which of two arguments it was was not plain,
    so its dims were lost (`x: [?, 4]`, "no launch follows n") where the CPU run recompiles at n=1
    (h20b). The def's parameters place it; a method's self is left out, as its calls leave it."""
    from tritonscope.analysis.launch_source import function_call, positional_params

    source = (
        "import torch\n\n@torch.compile\ndef f3(x, n):\n    return x.sum(0) * n\n\n"
        "for n in (8, 16):\n    f3(torch.randn(n, 4), n)\n\n"
        "class M:\n    def forward(self, h, scale=2):\n        return h\n"
    )
    tree = ast.parse(source)
    assert positional_params(tree, 3, "f3") == ["x", "n"] == positional_params(tree, 4, "f3")
    assert positional_params(tree, 11, "forward") == ["h", "scale"] and positional_params(tree, 9, "f3") is None
    assert function_call(tree, 8, ["x"], "f3") is None  # one tensor of two arguments: not plain
    call = function_call(tree, 8, ["x"], "f3", ["x", "n"])
    assert call is not None and [e.text for e in call.shape("x", frozenset({"n"}))] == ["n", "4"]


def test_a_kernel_launched_under_another_name_is_read_on_its_launch_line():
    """`from kernels import add_kernel as add; add[grid](x, n)`: the launch line was not read (its name
    was not the kernel's), so --shapes followed nothing there (h20b)."""
    from tritonscope.analysis.launch_source import kernel_launch

    for source in (
        "from kernels import add_kernel as add\nfor n in (64, 99):\n    add[(n,)](x, n, BLOCK=128)\n",
        "import kernels\nadd = kernels.add_kernel\nfor n in (64, 99):\n    add[(n,)](x, n, BLOCK=128)\n",
    ):
        tree = ast.parse(source)
        line = 1 + source.splitlines().index(next(t for t in source.splitlines() if "add[(n,)]" in t))
        launch = kernel_launch(tree, line, "add_kernel", ["x_ptr", "n_elements", "BLOCK"])
        assert launch is not None and ast.unparse(launch.arguments["n_elements"]) == "n", source
    assert kernel_launch(ast.parse("other[(n,)](x, n)\n"), 1, "add_kernel", ["x_ptr", "n"]) is None


def test_the_frame_compile_a_generated_kernel_belongs_to_is_the_scans_answer():
    """A generated kernel's frame compile: the last in the log's order begun at or before it. Found by a
    bisection now (a scan per lookup, three per record, was quadratic over a long generate()'s records);
    held against that scan on logs out of time order, with ties."""
    import random
    from pathlib import Path

    from tritonscope.captures.timeline import Timeline

    rng = random.Random(7)
    for _ in range(50):
        logged = tuple({"time": float(rng.randint(0, 30)), "n": n} for n in range(rng.randint(0, 12)))
        timeline = Timeline(Path("."), (), (), (), logged, (), ())
        for when in range(-1, 33):
            earlier = [t for t in logged if t["time"] <= when]
            assert timeline.torch_compile_before(when) == (earlier[-1] if earlier else None)


def test_a_keyword_inputs_size_mismatch_gets_its_fix():
    """Hugging Face models take their inputs by keyword: `tensor 'kwargs['input_ids']' size mismatch` was
    not read (the name's own quotes ended it), so every such recompile came with no fix."""
    from tritonscope.app.recompile_torch import fix
    from tritonscope.parsers.dynamo_guards import reason

    read = reason("0/1: tensor 'kwargs['input_ids']' size mismatch at index 1. expected 16, actual 24")
    assert (read.dim, read.expected, read.actual) == (("kwargs['input_ids']", 1), "16", 24), read
    record = {"function": "forward", "file": "/prog/model.py", "compile_id": "0/1", "inputs": {}, "guards": []}
    found = fix(record, [read])
    assert found is not None and found.code == "torch._dynamo.mark_dynamic(input_ids, 1)", found
    assert "the tensor the call passes as input_ids=" in found.said


def test_a_decorators_wrapper_is_named_by_the_function_it_wraps():
    """transformers wraps a model's forward in decorators: dynamo compiles `wrapper` (generic.py:933),
    and recompiles named that (h19b); the closure's function is the one the user wrote."""
    import functools

    from tritonscope.triton_api.torch_compiles import _named

    def traced(func):
        @functools.wraps(func)
        def wrapper(*args):
            return func(*args)

        return wrapper

    @traced
    def forward(frames):
        frames.append(sys._getframe(1))  # the wrapper's frame, as dynamo is given it

    seen: list = []
    forward(seen)
    name, file, line = _named(seen[0])
    assert name.endswith("forward (through wrapper)") and file == __file__
    assert line == forward.__wrapped__.__code__.co_firstlineno
    assert _named(sys._getframe())[0] == "test_a_decorators_wrapper_is_named_by_the_function_it_wraps"


def test_a_decorator_list_names_its_parameters_by_name_or_by_index():
    """`do_not_specialize=[2]` (Triton takes an index as well as a name) was read as a parameter named
    "2": the prediction then said `n` would recompile for its divisibility, where Triton never hints it."""
    from tritonscope.analysis.specialization import not_specialized

    source = (
        '@triton.jit(do_not_specialize=[2, "m"], do_not_specialize_on_alignment=[0])\n'
        "def k(x_ptr, y_ptr, n, m, BLOCK: tl.constexpr):\n    pass\n"
        'other = triton.jit(do_not_specialize=["q"])(f)\n'
    )
    assert not_specialized(source) == (frozenset({"n", "m", "q"}), frozenset({"x_ptr"}))


def test_only_a_blocks_size_is_bucketed_a_constexprs_other_values_are_warmed_up():
    """SCALE 1 -> 2 -> 3, EPS 1e-5 -> 1e-6, OUT_DT fp32 -> fp16 and ACT 'relu' -> 'none' were each
    "bucketed" (launch with SCALE=3: another result) and the proof of two failed in the compile; a
    block's size (powers of two, or made from a size) still is (h20b)."""
    from tritonscope.analysis import recompile_causes as rc
    from tritonscope.app.recompile_fixes import BUCKET, WARM, remedies
    from tritonscope.results.recompiles import KernelHistory, Variant

    def kernel(*changes: tuple[str, str, str]) -> KernelHistory:
        variants = [Variant(1, "h1", rc.FIRST, None, (), "", None, None, ())]
        for number, (name, before, after) in enumerate(changes, start=2):
            cause = rc.Cause(rc.CONSTEXPR, name, before, after, f"`{name}` changed {before} → {after}")
            variants.append(Variant(number, f"h{number}", rc.RECOMPILE, number - 1, (cause,), "", None, None, ()))
        return KernelHistory("k", "k.py", 1, tuple(variants))

    def hows(history: KernelHistory) -> dict[str, str]:
        return {p: r.how for r in remedies(history) for p in r.params}

    assert hows(kernel(("SCALE", "1", "2"), ("SCALE", "2", "3"))) == {"SCALE": WARM}
    switches = kernel(("EPS", "1e-05", "1e-06"), ("OUT_DT", "fp32", "fp16"), ("ACT", "relu", "none"))
    assert hows(switches) == {"EPS": WARM, "OUT_DT": WARM, "ACT": WARM}
    assert hows(kernel(("BLOCK", "64", "128"), ("BLOCK", "128", "256"))) == {"BLOCK": BUCKET}


def test_a_float_argument_given_the_int_1_is_said_to_change_type_not_to_equal_1():
    """`alpha` 2.5 then `1`: Triton makes the int 1 a constant, a float never; it was said to "equal 1",
    with a do_not_specialize fix that the proof then found did not hold (fp32 against i32: h20b)."""
    from tritonscope.analysis.recompile_causes import DTYPE, causes
    from tritonscope.analysis.specialization import Param, Specialization
    from tritonscope.app.recompile_fixes import WARM, fix, remedies
    from tritonscope.results.recompiles import KernelHistory, Variant

    a = Specialization((Param("x_ptr", "*fp32", hint="D"), Param("alpha", "fp32")))
    b = Specialization((Param("x_ptr", "*fp32", hint="D"), Param("alpha", "constexpr", "1")))
    (found,) = causes(a, b, ([], []))
    assert found.kind == DTYPE and found.said == "`alpha` was fp32 in variant 1 and the int 1 in variant 2 (a constant)"
    variants = (
        Variant(1, "h1", "first", None, (), "", None, None, ()),
        Variant(2, "h2", "recompile", 1, (found,), "", None, None, ()),
    )
    history = KernelHistory("k", "k.py", 1, variants)
    (remedy,) = remedies(history)
    assert remedy.how == WARM
    said = fix(history, remedy, {}, {}).said
    assert said == "pass `alpha` as a float (1.0, not 1): Triton makes an int 1 a constant, a float never"


def test_mark_dynamic_names_every_dimension_that_changed_not_only_the_first_guard():
    """A transposed input ([8, 16] then [16, 8]): dynamo's reason names dimension 0 only, and
    mark_dynamic(t, 0) still compiles again on dimension 1 (checked on the CPU: h20b)."""
    from tritonscope.app.recompile_torch import fix
    from tritonscope.parsers.dynamo_guards import reason

    def inputs(*shape: int) -> dict:
        return {"t": {"kind": "tensor", "shape": list(shape), "stride": [], "dtype": "torch.float32"}}

    entry = {"function": "f", "compile_id": "1/0", "inputs": inputs(8, 16)}
    text = "1/0: tensor 't' size mismatch at index 0. expected 8, actual 16"
    call = {"function": "f", "compile_id": "1/1", "inputs": inputs(16, 8), "reasons": [text]}
    assert fix(call, [reason(text)], [entry]).code == "torch._dynamo.mark_dynamic(t, [0, 1])"
    taller = {**call, "inputs": inputs(16, 16)}  # only the guard's dimension changed
    assert fix(taller, [reason(text)], [entry]).code == "torch._dynamo.mark_dynamic(t, 0)"


def test_a_recompile_is_compared_with_the_variant_it_differs_from_least_options_counted():
    """num_warps 4, then 8, then 4 with num_stages 2: #3 was compared with #2 (two differences) where #1
    differs by one, the launch options left out of the count (h20b)."""
    from tritonscope.analysis.recompile_causes import history
    from tritonscope.analysis.specialization import Param, Specialization

    params = (Param("x_ptr", "*fp32", hint="D"), Param("n", "i32", hint="D"))
    specs = [
        Specialization(params, (("num_warps", 4), ("num_stages", 3))),
        Specialization(params, (("num_warps", 8), ("num_stages", 3))),
        Specialization(params, (("num_warps", 4), ("num_stages", 2))),
    ]
    steps = history([(i, {"hash": f"h{i}"}, s) for i, s in enumerate(specs)], {})
    assert [s.compared_with for s in steps] == [None, 1, 1]
    assert [c.said for c in steps[2].causes] == ["launched with num_stages=2 (3 in variant 1)"]


def test_of_variants_alike_a_recompile_is_compared_with_the_earliest_the_warmups():
    """stride = n = 512 in the warmup, then 1 (constants), then 7: #3 differs from #1 and #2 by two
    each, and was said against #2, "stride was 1 in variant 2 (a constant)", where the warmup's
    stride=512 lost its divisibility by 16 (h25a)."""
    from tritonscope.analysis.recompile_causes import history
    from tritonscope.analysis.specialization import Param, Specialization

    def spec(stride: Param, n: Param) -> Specialization:
        return Specialization((Param("x_ptr", "*fp32", hint="D"), stride, n), (("num_warps", 4),))

    specs = [
        spec(Param("stride", "i32", hint="D"), Param("n", "i32", hint="D")),
        spec(Param("stride", "constexpr", "1"), Param("n", "constexpr", "1")),
        spec(Param("stride", "i32"), Param("n", "i32")),
    ]
    values = [{"kind": "int", "value": v} for v in (512, 1, 7)]
    launches = {f"h{i}": [{"params": ["x_ptr", "stride", "n"], "args": [{}, v, v]}] for i, v in enumerate(values)}
    steps = history([(i, {"hash": f"h{i}"}, s) for i, s in enumerate(specs)], launches)
    assert [s.compared_with for s in steps] == [None, 1, 1]
    assert [c.said for c in steps[2].causes] == [
        "`stride` was divisible by 16 in variant 1 and is not in variant 3 (stride=7)",
        "`n` was divisible by 16 in variant 1 and is not in variant 3 (n=7)",
    ]


def test_a_kernel_made_again_in_its_process_is_said_with_the_fix(tmp_path, cli):
    """A @triton.jit inside a function each step calls: the same binary, compiled again by each new
    kernel object (Triton's cache looked up again), was shown as "same binary" and nothing more (h20b)."""
    program = tmp_path / "remade.py"
    program.write_text(
        "import torch, triton, triton.language as tl\n\n"
        "def make():\n"
        "    @triton.jit\n"
        "    def inner_kernel(x_ptr, BLOCK: tl.constexpr):\n"
        "        o = tl.arange(0, BLOCK)\n"
        "        tl.store(x_ptr + o, tl.load(x_ptr + o) + 1)\n"
        "    return inner_kernel\n\n"
        "x = torch.zeros(256, device='cuda')\n"
        "for _ in range(2):\n"
        "    make()[(1,)](x, BLOCK=256)\n"
    )
    cli("trace", "--target", "sm90", "-o", tmp_path / "run", "--", sys.executable, program)
    document = json.loads(cli("recompiles", tmp_path / "run", "--json").stdout)
    remade = kernel(document, "inner_kernel")
    again = remade["variants"][1]
    assert again["role"] == "same binary again" and again["compared_with"] == 1
    assert again["causes"][0]["said"].startswith("the same kernel made again in the process that compiled it")
    assert [f["said"] for f in remade["fixes"]] == [
        "define inner_kernel once, at the module's top level: a kernel made again, or changed, is a new kernel"
    ]


def test_an_argument_read_after_a_graph_break_is_marked_where_the_function_is_called():
    """f(x, y) breaks its graph; the resume function's guard on y failed, and y was said to be "a value f
    computed before its graph break", called at the break's line (6) not the program's call (9) (h20b)."""
    from tritonscope.app.recompile_torch import fix
    from tritonscope.parsers.dynamo_guards import reason

    def tensor(*shape: int) -> dict:
        return {"kind": "tensor", "shape": list(shape), "stride": [], "dtype": "torch.float32"}

    f = {"function": "f", "compile_id": "0/0", "inputs": {"x": tensor(4), "y": tensor(8, 4)}}
    resumed = {"function": "torch_dynamo_resume_in_f_at_6", "compile_id": "1/0", "inputs": {"y": tensor(8, 4)}}
    text = "1/0: tensor 'y' size mismatch at index 0. expected 8, actual 16"
    again = {**resumed, "compile_id": "1/1", "inputs": {"y": tensor(16, 4), "a": tensor(4)}, "reasons": [text]}
    said = fix(again, [reason(text)], [f, resumed]).said
    assert said.startswith("torch._dynamo.mark_dynamic(y, 0) before the first call of f (its argument, read after")
    computed = "1/0: tensor 'a' size mismatch at index 0. expected 4, actual 8"
    assert "a value f computed before its graph break" in fix(again, [reason(computed)], [f, resumed]).said


def test_the_forecast_stops_at_the_programs_own_recompile_limit(tmp_path, cli):
    """A program that sets recompile_limit = 2: --shapes predicted entries up to torch's default 8, and
    said "recompile_limit (8 entries)" (h20b). Each compile record carries the program's limit. (x is
    found as the first of f's two arguments: its dims were lost where the size is passed too.)"""
    program = tmp_path / "limited.py"
    program.write_text(
        "import torch, torch._dynamo\nimport tritonscope\n\n"
        "torch._dynamo.config.recompile_limit = 2\n\n"
        "@torch.compile(dynamic=False)\ndef f(x, n):\n    return torch.exp(x) + n\n\n"
        "for n in (8,):\n    f(torch.randn(n, device='cuda'), n)\ntritonscope.mark('warmup')\n"
    )
    cli("trace", "--target", "sm90", "-o", tmp_path / "run", "--", sys.executable, program)
    (record,) = [json.loads(line) for line in (tmp_path / "run" / "torch_compiles.jsonl").read_text().splitlines()]
    assert record["limit"] == 2
    document = json.loads(cli("recompiles", tmp_path / "run", "--shapes", "n=1..64", "--json").stdout)
    (frame,) = document["torch_compiles"]
    assert len(frame["predicted"]) == 1, frame  # 1 entry in the warmup, 2 at most: then f runs eagerly
    assert "then dynamo's recompile_limit (2 entries): later shapes run eagerly" in frame["inputs"], frame
    assert document["compiles"] == 1


def test_a_function_past_its_recompile_limit_is_said_to_run_eagerly_and_not_counted_as_a_compile(tmp_path, cli):
    """The program's own recompile_limit (1 here; cache_size_limit on older torch): the second size's
    call ran eagerly, uncompiled, and nothing said so (h20b). Not a compile: the gate does not count it."""
    program = tmp_path / "limited.py"
    program.write_text(
        "import torch, torch._dynamo\nimport tritonscope\n\n"
        "torch._dynamo.config.recompile_limit = 1\n\n"
        "@torch.compile(dynamic=False)\ndef f(x):\n    return torch.exp(x) + 1\n\n"
        "f(torch.randn(8, device='cuda'))\ntritonscope.mark('warmup')\nf(torch.randn(16, device='cuda'))\n"
    )
    cli("trace", "--target", "sm90", "-o", tmp_path / "run", "--", sys.executable, program)
    document = json.loads(cli("recompiles", tmp_path / "run", "--after", "warmup", "--json").stdout)
    (eager,) = document["torch_compiles"]
    assert eager["eager"] == 1 and eager["compile_id"] == "" and eager["launch"]["values"] == "x: [16]"
    assert eager["said"].startswith("torch.compile gave up on `f` at this call: it has 1 entry, torch._dynamo's")
    assert eager["reasons"] == ["0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16"]
    assert eager["fix"]["code"] == "torch._dynamo.config.recompile_limit = 2"
    assert document["after_mark"] == {"compiles": 0, "torch_compiles": 0}


# the guards and the reason torch 2.13 recorded for `if x.shape[1] > 32:` in a compiled f, warmed up at
# x: [4, 8] and [4, 12] (a CPU run under TORCH_LOGS=recompiles; /tmp's path shortened as torch shortens it)
_BRANCH_GUARDS = [
    "LAMBDA_GUARD: L['x'].stride()[0] == L['x'].size()[1]",
    "LAMBDA_GUARD: 2 <= L['x'].size()[1] <= 32",
    "TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), "
    "torch.float32, device=None, requires_grad=False, size=[4, None], stride=[None, 1])",
]
_BRANCH_REASON = (
    "0/1: 2 <= x.size()[1] <= 32  # n = x.shape[1]  # mp/dim/prog.py:6 in f (user code shown is first use of this "
    "value--the guard itself is not due user code but due to 0/1 specialization in the framework; to avoid "
    "specialization try torch._dynamo.decorators.mark_unbacked(tensor, dim)) and if n > 32:  # mp/dim/prog.py:7 in f "
    "(_dynamo/variables/tensor.py:2606 in evaluate_expr)"
)


def test_a_size_the_compiled_function_tests_bounds_its_entry_from_above():
    """`if n > 32` on a dynamic size: the entry's guard is `2 <= x.size()[1] <= 32`. Its upper bound was
    read as torch's default range and dropped: --shapes n=1..64 predicted 1 compile to come where the
    CPU run (TORCH_LOGS=recompiles) made 2, at n=1 and at n=33; and a recompile at n=40 was said to be
    a 1 specialized, fixed with mark_unbacked, which changes nothing."""
    from tritonscope.analysis.dynamo_prediction import FrameModel, predict_frame
    from tritonscope.analysis.size_expressions import size
    from tritonscope.app.recompile_torch import fix, said
    from tritonscope.parsers.dynamo_guards import Guards, guards, reason

    entry = guards(_BRANCH_GUARDS)
    assert sorted(b.text for b in entry.bounds) == ["2 <= x.size()[1]", "x.size()[1] <= 32"]
    assert [b.text for b in guards(["LAMBDA_GUARD: 2 <= L['x'].size()[1] <= 2147483647"]).bounds] == [
        "2 <= x.size()[1]"
    ]
    seen = {("x", 0): frozenset({4}), ("x", 1): frozenset({8, 12})}
    warmup = (Guards({"x": (4, 8)}, ()), entry)
    frame = FrameModel("f", None, 4, {"x": (None, size("n"))}, {"x": (4, 12)}, warmup, seen)
    predicted = predict_frame(frame, {"n": (1, 64)})
    assert [(e.example["n"], e.sizes["x"]) for e in predicted] == [(1, (4, 1)), (33, (4, None))]

    record = {"function": "f", "compile_id": "0/2", "inputs": {"x": {"kind": "tensor", "shape": [4, 40]}}}
    read = [reason(_BRANCH_REASON), reason("0/0: tensor 'x' size mismatch at index 1. expected 8, actual 40")]
    sentence = said(record, read)
    assert "the entry's x.size()[1] <= 32: the function tests the size, at prog.py:7 (if n > 32:)" in sentence
    assert "a size of 1" not in sentence
    found = fix(record, read)
    assert found is not None and "mark_unbacked" not in found.said and found.code == ""
    assert "tests dimension 1 of `x`, at prog.py:7 (if n > 32:)" in found.said
    below = {"function": "f", "compile_id": "0/2", "inputs": {"x": {"kind": "tensor", "shape": [4, 1]}}}
    found = fix(below, read)  # the same guard failed by a 1: the 0/1 specialization, as before
    assert found is not None and found.code == "torch._dynamo.decorators.mark_unbacked(x, 1)"


def test_a_padding_is_proved_beside_the_other_arguments_fix_not_one_that_undoes_it():
    """`row_stride` (padding) and `n_cols` (do_not_specialize) both lost their divisibility: the
    padding's proof took the do_not_specialize of both names too, which drops the padded stride's
    hint, and said that variant and its cost (h23a). It is proved with `n_cols` alone unspecialized."""
    from tritonscope.analysis import recompile_causes as rc
    from tritonscope.app.recompile_fixes import DNS, PAD, Remedy, _needed

    causes = [rc.Cause(rc.DIVISIBILITY, "row_stride", "D", "", ""), rc.Cause(rc.DIVISIBILITY, "n_cols", "D", "", "")]
    pad = Remedy(PAD, rc.DIVISIBILITY, ("row_stride",))
    dns = Remedy(DNS, rc.DIVISIBILITY, ("n_cols", "row_stride"))
    assert _needed(pad, [pad, dns], causes, {}) == [pad, Remedy(DNS, rc.DIVISIBILITY, ("n_cols",))]
    assert _needed(dns, [pad, dns], causes, {}) == [dns]  # the do_not_specialize of both needs no padding
