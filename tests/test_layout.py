"""`tritonscope layout`: TTGIR layouts drawn through Triton's linear layouts, checked by hand."""

from __future__ import annotations

import json

import pytest

from tritonscope.analysis import layouts
from tritonscope.triton_api.layouts import linear_layout

BLOCKED = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"


def _ownership(layout, shape):
    """Who holds each element, with the bases from Triton's own conversion."""
    return layouts.ownership(linear_layout(layout, list(shape)), shape)


def test_blocked_ownership_matches_the_layout_rules_by_hand():
    own = _ownership(layouts.parse(BLOCKED), (16, 16))
    assert (own.warps, own.lanes, own.registers) == (4, 32, 4)
    for (row, column), owners in own.owners.items():
        # 4 consecutive columns per thread, 4 threads across a row, 8 rows per warp, warps stacked on rows;
        # the 4 warps cover 32 rows, so rows 0-15 are held twice (warps 0 and 2, 1 and 3).
        lane, register, warp = (row % 8) * 4 + column // 4, column % 4, row // 8
        assert sorted(owners) == [(warp, lane, register), (warp + 2, lane, register)], (row, column)


def test_slice_and_mma_layouts():
    slice_ = layouts.parse(f"#ttg.slice<{{dim = 1, parent = {BLOCKED}}}>")
    assert slice_.kind == "slice" and slice_.fields["parent"].kind == "blocked"
    own = _ownership(slice_, (16,))
    assert {lane for _, lane, _ in own.owners[(3,)]} == {12, 13, 14, 15}  # the 4 threads of row 3
    mma = layouts.parse(
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
    )
    own = _ownership(mma, (32, 16))
    assert own.owners[(0, 0)][0][1] == 0 and own.owners[(0, 2)][0][1] == 1  # mma.sync: lane 1 holds columns 2-3


def test_command_draws_a_given_layout(cli):
    out = cli("layout", BLOCKED, "--shape", "16x16").stdout
    rows = [line.split() for line in out.splitlines() if len(line.split()) == 18]  # a label, 16 cells, the warps
    assert rows[1][:5] == ["1", "4", "4", "4", "4"] and rows[9][-5:-1] == ["7", "7", "7", "7"]
    # piped, no colour tells the warps apart: each row names its own (lane 0 of two warps read alike)
    assert [rows[n][-1] for n in (0, 7, 8)] == ["w0", "w0", "w1"] and "w: the warps of its row" in " ".join(out.split())
    doc = json.loads(cli("layout", BLOCKED, "--shape", "16x16", "--json").stdout)
    assert doc["owners"]["9,5"] == [[1, 5, 1], [3, 5, 1]]


def test_layout_from_a_real_compilation(cli):
    doc = json.loads(cli("layout", "--from", "sample:softmax", "--value", "row", "-t", "sm90", "--json").stdout)
    assert doc["shape"] == [1024] and doc["layout"].startswith("#ttg.blocked<{sizePerThread = [")
    mma = cli("layout", "--from", "sample:matmul", "--line", "35", "-t", "sm80").stdout
    assert "#ttg.nvidia_mma<{versionMajor = 2" in mma and "Python line 35" in mma


def test_a_name_the_pipeliner_gave_its_masks_too_is_the_assigned_tensor(cli):
    """In the fused attention, `%acc` is first a predicate of the pipeliner's prologue (named after
    the loop carrying `acc`, splat to masks of i1); `--value acc` is the accumulator the statements
    `acc = acc * alpha[:, None]` and `acc = tl.dot(...)` assign: fp32, in the MMA layout."""
    doc = json.loads(cli("layout", "--from", "sample:fused_attention", "--value", "acc", "-t", "sm90", "--json").stdout)
    assert doc["shape"] == [128, 64] and doc["layout"].startswith("#ttg.nvidia_mma<{versionMajor = 3")
    assert "xf32" in doc["origin"] and "xi1" not in doc["origin"]
    # sm90's `accumulator = tl.dot(...)` ends in a warp_group_dot_wait whose three results hand back the
    # operands' shared memory too (its type, read last, was b's): the dot itself, fp32 in the MMA layout
    doc = json.loads(cli("layout", "--from", "sample:matmul", "--value", "accumulator", "-t", "sm90", "--json").stdout)
    assert doc["shape"] == [128, 128] and doc["layout"].startswith("#ttg.nvidia_mma<{versionMajor = 3")
    # `b = tl.load(b_ptr + ...)` in the loop: its tile in shared memory, not the pointers hoisted out of it
    b = cli("layout", "--from", "sample:matmul", "--value", "b", "-t", "sm90").stdout
    assert "ttg.memdesc_index" in b.splitlines()[0] and "tt.splat" not in b.splitlines()[0], b[:400]
    # at -s 2 (layout takes the options every command does) `a`'s line also splats K - k * BLOCK for its
    # mask, later in the loop than its tile: the i32 splat was drawn; the f16 tile loaded from shared is `a`
    doc = json.loads(cli("layout", "--from", "sample:matmul", "--value", "a", "-t", "sm80", "-s", "2", "--json").stdout)
    assert "ttg.local_load" in doc["origin"] and "xf16" in doc["origin"] and doc["shape"][0] == 128, doc["origin"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([BLOCKED], "--shape is needed"),
        ([BLOCKED, "--shape", "12x16"], "must be a power of two"),
        (["#ttg.swizzled_shared<{vec = 8}>", "--shape", "16x16"], "are not drawn yet"),
        (["#blocked", "--shape", "16x16"], "not a TTGIR layout"),
        ([], "give a LAYOUT, or --from FILE"),
        (
            ["--from", "sample:softmax", "-t", "sm90", "--value", "row", "--line", "30"],
            "--value NAME and --line N each choose the value to draw: give one of them, not both",
        ),
        (["--from", "sample:softmax", "--value", "nope", "-t", "sm90"], "no tensor or shared memory with a layout"),
        (["--from", "sample:softmax", "--value", "", "-t", "sm90"], "--value needs a name"),
        (["--from", "sample:softmax", "--shape", "64x64", "-t", "sm90"], "--shape draws one value at that shape"),
        (  # Triton asserted on it (SIGABRT in combineCtaCgaWithShape), said as Triton's crash
            ["--from", "sample:softmax", "--value", "row", "--shape", "64x64x2", "-t", "sm90"],
            "value %row is a 1-D tensor (1024) but --shape 64x64x2 is 3-D",
        ),
    ],
)
def test_bad_layout_requests(cli, args, message):
    assert message in cli("layout", *args, expect=2).stderr


def test_a_layout_triton_aborts_on_leaves_no_cpp_assertion_on_the_terminal():
    """Triton 3.9's LinearLayout asserts on gfx942's rotating shared layout and aborts the worker: its
    `Assertion ... failed` line reached the user's stderr under `explain` and `layout`, with no context.
    The count is unknown, said in the table; the other pairs are counted each alone."""
    from cli_process import tritonscope  # a process of its own: its workers' C-level stderr is its own

    done = tritonscope("layout", "--from", "sample:matmul", "-t", "gfx942")
    assert "Assertion" not in done.stderr and "LinearLayout.cpp" not in done.stderr
    rows = [line for line in done.stdout.splitlines() if "local_store" in line]
    assert rows and all(line.split()[-1] == "unknown" or line.split()[-1].isdigit() for line in rows)


def test_a_long_op_is_shortened_at_its_types_not_in_the_middle_of_one():
    """`layout --line 35` cut the dot's text mid-type (`#ttg.dot_op<{opId…`, h19c): its operand types go
    first, the layout drawn below being the one that matters."""
    from tritonscope.app.layout import _shortened

    op = (
        "%accumulator_107 = tt.dot %a_104, %b_106, %accumulator_89, inputPrecision = tf32 : tensor<128x64xf16, "
        "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<64x128xf16, #ttg.dot_op<{opIdx = 1}>>"
    )
    assert _shortened(op) == "%accumulator_107 = tt.dot %a_104, %b_106, %accumulator_89, inputPrecision = tf32 : …"
    assert _shortened("%x = tt.load %p") == "%x = tt.load %p"
    long = "%y = tt.call @" + "a" * 60 + " " + " ".join(f"%arg{i}" for i in range(30))
    assert len(_shortened(long)) <= 120 and _shortened(long).endswith(" …")


def test_the_layout_list_at_80_columns_folds_its_fields_at_spaces():
    """`#ttg.blocked<{sizePerThread` is 27 columns, past the layout column's 26 at 80 columns: it folded
    as `sizePerThrea` / `d = [1, 8]` (h24a). The kind column names the kind; the fields fold at spaces."""
    from cli_process import tritonscope

    out = tritonscope("layout", "--from", "sample:matmul", "-t", "sm90", env={"COLUMNS": "80"}).stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    fields = " ".join(line.rsplit("│", 1)[1].strip() for line in out.splitlines() if line.count("│") == 3)
    assert "sizePerThread = [" in fields and "threadsPerWarp = [" in fields and "warpsPerCTA = [" in fields, out
    assert "#ttg.blocked<{" not in out and "its fields" in out
