"""`recompiles DIR/ --shapes`: the compiles still to come after a warmup, predicted with no GPU from
a real `trace --target sm90` of it. A small server (tests/kernels/predict_program.py): a size
product that reaches 1, a constexpr that is next_power_of_2 of a size, divisibility by 16, a value
that is no function of the sizes; `--compile` (one compile per predicted variant); and the server
program of issue 54 held against what an NVIDIA H200 (sm90) compiled after its warmup
(tests/data/recompiles/h200_truth.json, from benchmarks/recompile_ground_truth.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import KERNELS, traced

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import recompile_prediction as bench  # noqa: E402

PROGRAM = KERNELS / "predict_program.py"
SHAPES = "batch=1..64,seq=1..32"


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    from conftest import Cli

    out = tmp_path_factory.mktemp("predict") / "warm"
    Cli()("trace", "--target", "sm90", "--launches", "100", "-o", out, "--", sys.executable, PROGRAM)
    return out


@pytest.fixture(scope="module")
def document(capture):
    from conftest import Cli

    return json.loads(Cli()("recompiles", capture, "--shapes", SHAPES, "--json").stdout)


def kernel(document, name):
    return next(k for k in document["kernels"] if k["name"] == name)


def test_a_product_of_sizes_reaching_1_is_predicted_at_batch_1_seq_1(document):
    divisible = kernel(document, "divisible_kernel")
    assert "n_elements = batch * seq (the launch line)" in divisible["params"]
    assert divisible["warmup_variants"] == 2  # n = 128, 2048, 64 divisible by 16; n = 4 not
    (new,) = divisible["predicted"]
    assert new["where"] == "batch = 1 and seq = 1" and new["example"] == {"batch": 1, "seq": 1}
    assert "n_elements=1" in new["specialization"] and new["arguments"]["n_elements"] == 1
    assert new["differs"] == ["`n_elements` equals 1 in this variant, so Triton made it a constant"]
    assert new["compile_seconds"] is None  # nothing compiled without --compile


def test_a_constexpr_next_power_of_2_of_a_size_and_divisibility_by_16(document):
    row = kernel(document, "row_kernel")
    assert row["params"] == [
        "n_cols = seq (the launch line)",
        "BLOCK_SIZE = triton.next_power_of_2(seq) (the launch line)",
    ]
    where = {p["where"]: p for p in row["predicted"]}
    assert set(where) == {"seq = 2", "seq in 3, 4", "seq in 5..8 (4 values)", "seq in 9..15 (7 values)",
                          "seq = 16", "seq in 17..31 (15 values)"}  # fmt: skip
    assert where["seq = 16"]["specialization"].endswith("n_cols: i32 D, BLOCK_SIZE=16")
    assert where["seq in 9..15 (7 values)"]["specialization"].endswith("n_cols: i32, BLOCK_SIZE=16")
    said = where["seq in 5..8 (4 values)"]["differs"]
    assert "`n_cols` was divisible by 16 in the warmup and is not in this variant (n_cols=5)" in said
    assert "`BLOCK_SIZE` = `triton.next_power_of_2(n_cols)` changed 32 → 8 (n_cols=32 → 5)" in said
    assert document["compiles"] == 13  # row_kernel's 6 again for strided_row_kernel, and divisible_kernel's 1


def test_a_stride_equal_to_a_later_size_argument_follows_it(document):
    """A row's stride passed before the row's length (`x.stride(0), n_cols`) was read before the length
    had its expression: "not a function of the declared sizes", held divisible by 16, so each variant
    had it `D` (at seq=1 it is the constant 1), and a capture's own late compile was counted twice."""
    strided = kernel(document, "strided_row_kernel")
    assert strided["params"][0] == "in_stride = seq (equal to n_cols in every warmup launch)"
    where = {p["where"]: p for p in strided["predicted"]}
    assert where["seq in 9..15 (7 values)"]["specialization"].endswith("in_stride: i32, n_cols: i32, BLOCK_SIZE=16")
    assert where["seq = 16"]["specialization"].endswith("in_stride: i32 D, n_cols: i32 D, BLOCK_SIZE=16")


def test_a_value_no_function_of_the_sizes_is_said_and_held_at_the_warmups(document):
    one = kernel(document, "one_kernel")
    assert one["params"][0] == "n_rows: not a function of the declared sizes; held at what the warmup saw (3, 4, 5, 6)"
    assert one["predicted"] == []


def test_sizes_the_warmup_covered_predict_no_compile(capture, cli):
    out = cli("recompiles", capture, "--shapes", "batch=4..4,seq=32..32").stdout
    assert "divisible_kernel: 0 new variants (the warmup compiled 2)" in out
    assert out.rstrip().endswith("no compile to come")


def test_compile_gives_each_predicted_variant_its_compile_time(capture, cli):
    found = json.loads(cli("recompiles", capture, "--shapes", "batch=1..64,seq=1..8", "--compile", "--json").stdout)
    predicted = [(k["name"], p) for k in found["kernels"] for p in k["predicted"]]
    assert [(name, p["where"]) for name, p in predicted] == [
        ("divisible_kernel", "batch = 1 and seq = 1"),
        ("row_kernel", "seq = 2"),
        ("row_kernel", "seq in 3, 4"),
        ("row_kernel", "seq in 5..8 (4 values)"),
        ("strided_row_kernel", "seq = 2"),
        ("strided_row_kernel", "seq in 3, 4"),
        ("strided_row_kernel", "seq in 5..8 (4 values)"),
    ]
    assert all(p["compile_seconds"] > 0 for _, p in predicted)


def test_the_terminal_view_fits_80_columns(capture):
    from typer.testing import CliRunner

    from tritonscope.cli.runner import app

    result = CliRunner().invoke(app, ["recompiles", str(capture), "--shapes", SHAPES], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stdout
    out = result.stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "row_kernel: 6 new variants (the warmup compiled 2)" in out
    assert out.rstrip().endswith("13 compiles to come")


def test_bad_shapes_and_compile_without_shapes_are_usage_errors(capture, cli):
    said = cli("recompiles", capture, "--shapes", "batch=1-256", expect=2).stderr
    assert "--shapes expects NAME=LOW..HIGH" in said and "'batch=1-256'" in said
    said = cli("recompiles", capture, "--shapes", "seq=9..2", expect=2).stderr
    assert "--shapes seq=9..2" in said
    said = cli("recompiles", capture, "--shapes", "seq=-5..3", expect=2).stderr  # was the syntax's message
    assert "--shapes seq=-5..3: the range must run from a size of 0 or more" in said, said
    said = cli("recompiles", capture, "--compile", expect=2).stderr
    assert "give the sizes with --shapes" in said
    said = cli("recompiles", capture, "--shapes", SHAPES, "--after", "steady", expect=2).stderr
    assert "never passed a mark named 'steady' (its marks: warmup)" in said
    said = cli("recompiles", capture, "--shapes", "batch=1..99999999999999999999", expect=2).stderr
    assert "a size is a 64-bit integer at most" in said  # an internal error, once


def test_a_size_no_launch_follows_is_said_and_held_values_are_not_mixed(capture, cli):
    """A name no argument follows (a typo) is said; the arguments no size decides are held as the
    warmup launched them together: no variant is invented from values that were never launched together."""
    from tritonscope.app.recompile_predict import predict

    found = predict(capture, {"bacth": (1, 64)}, "warmup", refuse_unfollowed=False)
    assert any(n.startswith("--shapes bacth: no launch of this capture follows it") for n in found.notes)
    predicted = [p for k in found.kernels for p in k.predicted]
    assert all(p.where == "compiled after the mark in this capture" for p in predicted), predicted
    assert found.unfollowed == ("bacth",) and not found.predicts
    # followed by no launch, the sizes predict nothing: never "no compile to come" (a CI's pass), and
    # not "not known" with exit 0 either (h23a): exit 2, the program's name it is close to
    said = cli("recompiles", capture, "--shapes", "bacth=1..64", expect=2).stderr
    assert "--shapes bacth: no launch of this capture follows it" in said and "nothing is predicted" in said
    assert "hint: did you mean batch?" in said, said
    assert cli("recompiles", capture, "--shapes", "bacth=1..64", "--json", expect=2).stdout == ""


def test_the_names_offered_for_a_typo_are_the_programs_not_its_kernels_locals():
    """`--shapes off=0..8` was asked "did you mean offs?", a tl.arange inside the kernel, and `rows`
    "did you mean row?", a program id: no launch is made of a kernel's locals (h25a)."""
    from tritonscope.app.recompile_predict import _program_words

    program = """
import triton
import triton.language as tl

@triton.jit
def copy(x_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = row * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

def go(off, n, rows):
    copy[(rows,)](buf[off:off + n], n, BLOCK=1024)
"""
    words = _program_words(program)
    assert {"off", "rows", "n", "go", "buf"} <= words and not {"offs", "row", "BLOCK_"} & words, words


def test_a_stride_equal_to_a_size_at_the_warmups_one_size_moves_with_it(tmp_path, cli):
    """One warmup launch, stride = seq = 512: the stride was held at 512 ("the same in every warmup
    launch"), and the prediction compiled `stride: i32 D, n: i32` where the run compiled stride=1, n=1
    and stride=7, n=7 (h25a). Equal to the size there, it moves with it, and that this rests on one
    size is said."""
    from tritonscope.app.recompile_predict import predict

    out = tmp_path / "one"
    cli("trace", "--target", "sm90", "-o", out, "--", sys.executable, KERNELS / "predict_one_size.py")
    (kernel,) = predict(out, {"seq": (1, 1024)}, "warmup").kernels
    stride = next(p for p in kernel.params if p.startswith("stride ="))
    assert stride.startswith("stride = seq (equal to n at the warmup's one size"), stride
    keys = [v.specialization for v in kernel.predicted]
    assert len(kernel.predicted) == 2, keys
    assert any("stride=1" in k and "n=1" in k for k in keys), keys
    # the span with gaps (the sizes not divisible by 16) says so: "959 values" read as the whole span
    assert "seq in 2..1023 (959 of its 1,022 values)" in [v.where for v in kernel.predicted], kernel.predicted


def test_an_argument_reading_an_undeclared_name_says_which(capture):
    """`n_elements = batch * seq` with seq alone declared was "not a function of the declared sizes", which read
    as no function of them at all (h25a): the name to declare is said."""
    from tritonscope.app.recompile_predict import predict

    found = predict(capture, {"seq": (1, 64)}, "warmup")
    (divisible,) = [k for k in found.kernels if k.name == "divisible_kernel"]
    (n,) = [p for p in divisible.params if p.startswith("n_elements")]
    assert n.startswith("n_elements: its launch line reads batch too, not declared (add batch=LO..HI to"), n
    (one,) = [k for k in found.kernels if k.name == "one_kernel"]  # a count no size makes: as it was
    assert any(p.startswith("n_rows: not a function of the declared sizes") for p in one.params), one.params


def test_a_size_that_moves_where_a_pointer_starts_is_said_so_not_as_a_typo(tmp_path, cli):
    """`x = buf[off:off + n]`, x launched: `--shapes off=0..8` was "no launch of this capture follows it",
    where off moves x's alignment, the very cause of the capture's recompile (h25a)."""
    out = traced(
        tmp_path,
        cli,
        "import torch, triton, triton.language as tl, tritonscope\n"
        "@triton.jit\ndef copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
        "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(y_ptr + o, tl.load(x_ptr + o, mask=o < n), mask=o < n)\n"
        "buf = torch.randn(8192, device='cuda')\nout = torch.empty(8192, device='cuda')\n"
        "def go(off, n):\n    x = buf[off:off + n]\n    copy[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)\n"
        "go(0, 4096)\ntritonscope.mark('warmup')\n",
    )
    said = " ".join(cli("recompiles", out, "--shapes", "off=0..8", expect=2).stderr.split())
    assert "--shapes off: it moves where `x_ptr` starts in its storage (the launch line slices it)" in said, said
    assert "no launch of this capture follows" not in said
    found = json.loads(cli("recompiles", out, "--shapes", "off=0..8,n=1..4096", "--json").stdout)
    assert any("16-byte alignment, which the prediction does not follow" in n for n in found["notes"]), found


ROWS_PROGRAM = (
    "import torch, triton, triton.language as tl, tritonscope\n"
    "@triton.jit\ndef scale(x_ptr, stride, n, BLOCK: tl.constexpr):\n"
    "    o = tl.arange(0, BLOCK)\n    p = x_ptr + tl.program_id(0) * stride + o\n"
    "    tl.store(p, tl.load(p, mask=o < n) * 2, mask=o < n)\n"
    "@triton.jit\ndef flat(x_ptr, n, BLOCK: tl.constexpr):\n"
    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < n) + 1, mask=o < n)\n"
    "def go(rows, seq):\n    x = torch.randn(rows, seq, device='cuda')\n"
    "    scale[(rows,)](x, x.stride(0), seq, BLOCK=1024)\n"
    "    total = rows * seq\n    flat[(triton.cdiv(total, 256),)](x, total, BLOCK=256)\n"
    "go(4, 512)\ngo(4, 1024)\ntritonscope.mark('warmup')\n"
)


def test_a_size_that_sets_a_grid_alone_compiles_nothing_and_an_allocation_moves_no_start(tmp_path, cli):
    """`scale[(rows,)]` over `x = torch.randn(rows, seq)`: --shapes rows was refused ("no launch follows
    it") where the answer is no compile; `torch.randn(batch, seq)` was said to move where x starts, and
    a size an argument reads beside one not declared (total = rows * seq) read as a typo (h25a)."""
    out = traced(tmp_path, cli, ROWS_PROGRAM.replace("flat[", "pass  # flat[").replace("total = rows", "pass  #"))
    done = cli("recompiles", out, "--shapes", "rows=1..64")
    said = " ".join(done.stdout.split())
    assert "--shapes rows: it sets only the grid of scale, and a grid is no part of what Triton specializes" in said
    assert said.endswith("no compile to come"), said
    assert "moves where" not in said
    (tmp_path / "both").mkdir()
    out = traced(tmp_path / "both", cli, ROWS_PROGRAM)
    refused = " ".join(cli("recompiles", out, "--shapes", "rows=1..64", expect=2).stderr.split())
    assert "moves where" not in refused and "no launch of this capture follows" not in refused, refused
    assert "flat's n: its launch line reads seq too, not declared (add seq=LO..HI to --shapes)" in refused, refused
    both = json.loads(cli("recompiles", out, "--shapes", "rows=1..64,seq=1..1024", "--json").stdout)
    assert not any("grid" in note for note in both["notes"])  # rows reaches flat's n: not the grid's alone


def test_a_huge_range_is_sampled_not_laid_out(capture, cli):
    document = json.loads(cli("recompiles", capture, "--shapes", "batch=1..4000000000,seq=1..32", "--json").stdout)
    assert document["compiles"] >= 1 and document["kernels"]
    # a range's count is of the samples, and says so (it read as the count of every value in the range)
    wheres = [p["where"] for k in document["kernels"] for p in k["predicted"]]
    counted = [w for w in wheres if w.startswith("batch in") and " values" in w]  # a kernel of seq alone is not sampled
    assert counted and all(w.split(" and ")[0].endswith("values sampled)") for w in counted), wheres


def test_a_variant_met_at_one_sample_is_not_said_to_be_that_one_size(capture, cli):
    """Past 2**31 the i64 sizes not divisible by 16 are met at one sample (2**31 + 1) of a sampled range:
    said `batch = 2147483649`, it read as the one size that compiles it (h23a)."""
    shapes = "batch=1..2200000000,seq=1..1"
    document = json.loads(cli("recompiles", capture, "--shapes", shapes, "--json").stdout)
    wheres = {p["where"] for p in kernel(document, "divisible_kernel")["predicted"]}
    assert "batch near 2147483649 (1 value sampled) and seq = 1" in wheres, wheres
    assert "batch in 2147483648..2200000000 (3 values sampled) and seq = 1" in wheres, wheres
    assert "batch = 1 and seq = 1" in wheres, wheres  # in the first thousand, every value is taken: exact


@pytest.fixture(scope="module")
def server_warmup(tmp_path_factory):
    """The server program's warmup alone, traced here on the simulated sm90 (--requests 0)."""
    truth = json.loads(bench.TRUTH.read_text())
    return bench.warmup_capture(tmp_path_factory.mktemp("server") / "warm", truth["argv"])


def test_the_server_prediction_against_what_the_h200_compiled_after_warmup(server_warmup):
    truth = json.loads(bench.TRUTH.read_text())
    assert truth["gpu"] == "NVIDIA H200 (sm90)"
    pairs = bench.compare(truth, bench.predicted(server_warmup, truth["argv"]))
    late, both = pairs["triton"]["truth"], pairs["triton"]["both"]
    assert len(late) == 14 and pairs["torch"]["truth"] == 1
    assert pairs["torch"]["found"] == 1  # the batch-1 request at a new length: a new entry
    n, guessed, found = bench.figures(pairs, marker=False)
    assert found / n >= 0.9 and found / guessed >= 0.8, bench.table(truth, pairs)
    # The one miss: log-probabilities in fp32, a dtype that is no function of the sizes.
    assert {k for k, _ in late - both} == {"log_softmax_kernel"}


@pytest.mark.gpu
def test_the_prediction_against_a_fresh_gpu_run_of_the_server(tmp_path, server_warmup):
    """On the GPU: the server's compiles after warmup collected now (benchmarks/recompile_ground_truth.py),
    predicted from the simulated sm90 warmup; the same goals."""
    import subprocess

    script = ROOT / "benchmarks" / "recompile_ground_truth.py"
    done = subprocess.run([sys.executable, str(script), "--out", str(tmp_path), "--budget", "400"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    full = json.loads((tmp_path / "recompiles_truth.json").read_text())
    truth = bench.compact(full, "this GPU")
    pairs = bench.compare(truth, bench.predicted(server_warmup, truth["argv"]))
    print(bench.table(truth, pairs))
    n, guessed, found = bench.figures(pairs, marker=False)
    assert n >= 10 and found / n >= 0.9 and found / guessed >= 0.8


def test_a_model_called_with_keywords_predicts_its_length_1_entry(tmp_path, cli):
    """A Hugging Face forward takes **kwargs: its inputs were not recorded, its shape guards were cut off
    by its weights', and `--shapes L=1..128` said "no compile to come" where L=1 compiles again."""
    out = tmp_path / "kw"
    cli("trace", "--target", "sm90", "-o", out, "--", sys.executable, KERNELS / "keyword_model.py")
    document = json.loads(cli("recompiles", out, "--shapes", "L=1..64", "--json").stdout)
    (frame,) = document["torch_compiles"]
    assert frame["inputs"] == ["kwargs['input_ids']: [2, L, 8]"], frame
    # the one new entry: dynamic=True keeps the batch dynamic (its entries guard `2 <= size()[0]`), L=1 static
    assert [e["said"] for e in frame["predicted"]] == ["kwargs['input_ids']: [dynamic, 1, 8]"], frame


def test_an_autotuned_kernels_late_compiles_are_its_predicted_ones_not_more(tmp_path, cli):
    """A capture whose run compiled an autotuned kernel's configs after the mark: each was listed again as
    "compiled after the mark" beside the prediction that counts its configs (12 compiles to come for 10)."""
    out = traced(
        tmp_path,
        cli,
        "import sys, torch, triton, triton.language as tl, tritonscope\n"
        "@triton.autotune([triton.Config({'BLOCK': 128}), triton.Config({'BLOCK': 256})], key=['n'])\n"
        "@triton.jit\ndef tuned(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, 1.0, mask=o < n)\n"
        "x = torch.empty(8192, device='cuda')\n"
        "def serve(n):\n    tuned[lambda meta: (triton.cdiv(n, meta['BLOCK']),)](x, n)\n"
        "serve(4096)\ntritonscope.mark('warmup')\nserve(4099)\n",
    )
    found = json.loads(cli("recompiles", out, "--after", "warmup", "--shapes", "n=4096..4100", "--json").stdout)
    (tuned,) = [k for k in found["kernels"] if k["name"] == "tuned"]
    assert [p["where"] for p in tuned["predicted"]] == ["n in 4097..4100 (4 values)"], tuned["predicted"]
    assert found["compiles"] == 2  # the one variant, once per config: what the run compiled after the mark


def test_the_captures_own_late_compiles_are_counted_apart_from_the_predicted(tmp_path, cli):
    """A compile the run made after the mark at a size outside those declared was counted among "the
    compiles to come" with the predicted ones, as if the sizes made it (h25a)."""
    out = traced(
        tmp_path,
        cli,
        "import torch, triton, triton.language as tl, tritonscope\n"
        "@triton.jit\ndef fill(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, 1.0, mask=o < n)\n"
        "x = torch.empty(8192, device='cuda')\n"
        "def serve(n):\n    fill[(triton.cdiv(n, 128),)](x, n, BLOCK=128)\n"
        "serve(4096)\ntritonscope.mark('warmup')\nserve(4099)\n",
    )
    args = ("recompiles", out, "--after", "warmup", "--shapes", "n=4096..4096")
    found = json.loads(cli(*args, "--json").stdout)
    assert found["compiles"] == 1 and found["seen_after_mark"] == 1, found
    assert cli(*args).stdout.rstrip().endswith("1 compile to come: the one the capture made after the mark")
    found = json.loads(cli("recompiles", out, "--after", "warmup", "--shapes", "n=4096..4200", "--json").stdout)
    assert found["seen_after_mark"] == 0 and found["compiles"] >= 1  # the late compile is one the sizes make


def test_a_heuristics_block_equal_to_its_size_in_a_warmup_of_powers_of_two_is_its_next_power(tmp_path, cli):
    """BLOCK = next_power_of_2(n) by @triton.heuristics, warmed up at n = 128 and 256: "BLOCK = seq (equal
    to n in every warmup launch)" predicted BLOCK=3, 5, ... and 298 compiles, which do not compile; the
    program run at every size compiles the 14 predicted here (h20b), counted from the launches' rule."""
    program = KERNELS / "predict_heuristic.py"
    cli("trace", "--target", "sm90", "-o", tmp_path / "warm", "--", sys.executable, program)
    document = json.loads(cli("recompiles", tmp_path / "warm", "--shapes", "seq=1..300", "--json").stdout)
    model = kernel(document, "h_kernel")
    assert "BLOCK = triton.next_power_of_2(seq) (next_power_of_2(n) in every warmup launch)" in model["params"]
    # Triton's launcher at each size: n == 1 a constant, else divisible by 16 or not; BLOCK its own value
    keys = {(n == 1, n % 16 == 0, 2 ** (n - 1).bit_length()) for n in range(1, 301)}
    assert len(model["predicted"]) == len(keys - {(False, True, 128), (False, True, 256)}) == 14
    assert document["compiles"] == 14
