"""`tritonscope grid`: the kernel's index arithmetic run under Triton's interpreter."""

from __future__ import annotations

import json

import pytest
from conftest import KERNELS

NOTES = [
    "-a",
    "M=1152",
    "-a",
    "N=1152",
    "-a",
    "K=1152",
    "-c",
    "BLOCK_SIZE_M=128",
    "-c",
    "BLOCK_SIZE_N=128",
    "-c",
    "BLOCK_SIZE_K=128",
]


def _grid(cli, *args):
    return json.loads(cli("grid", *args, "--json").stdout)


@pytest.mark.parametrize(
    ("sample", "extra", "total", "per_input"),
    [
        ("matmul", [], 90, {"a_ptr": 81, "b_ptr": 9}),  # row-major: 9 rows of A tiles, one column of B tiles
        ("matmul_grouped", ["-c", "GROUP_SIZE_M=3"], 54, {"a_ptr": 27, "b_ptr": 27}),  # 3x3 group: 3 rows, 3 columns
    ],
)
def test_the_notes_figure_90_against_54(cli, sample, extra, total, per_input):
    doc = _grid(cli, f"sample:{sample}", *NOTES, *extra, "--wave", "9")
    assert len(doc["programs"]) == 81  # a 9x9 grid of output tiles
    assert doc["wave"]["distinct_input_tiles"] == per_input and sum(per_input.values()) == total
    out = cli("grid", f"sample:{sample}", *NOTES, *extra, "--wave", "9").stdout
    assert f"the first 9 programs, running at once, load {total} distinct input tiles" in out
    # piped, no colours: the wave is said in numbers ("colours change every 9 programs" pointed at nothing)
    assert "one wave is 9 programs: 0-8, 9-17, ..." in out and "colours" not in out


def test_grouped_order_is_drawn_tile_by_tile(cli):
    out = cli("grid", "sample:matmul_grouped", *NOTES, "-c", "GROUP_SIZE_M=3").stdout
    rows = [line.split() for line in out.splitlines() if len(line.split()) == 9 and line.split()[0].isdigit()]
    assert rows[0] == ["0", "3", "6", "9", "12", "15", "18", "21", "24"] and rows[3][0] == "27"
    plain = cli("grid", "sample:matmul", *NOTES).stdout
    rows = [line.split() for line in plain.splitlines() if len(line.split()) == 9 and line.split()[0].isdigit()]
    assert rows[0][:3] == ["0", "9", "18"] and rows[1][0] == "1"  # axis 0 (tile rows) launches fastest


def test_vector_add_ranges_and_masked_tail(cli):
    doc = _grid(cli, "sample:vector_add", "-a", "n_elements=98432")
    programs = doc["programs"]
    assert len(programs) == 97  # cdiv(98432, 1024)
    assert programs[0]["stores"][0]["runs"] == [[0, 1024]] and programs[0]["loads"][0]["param"] == "x_ptr"
    assert programs[-1]["stores"][0] == {"param": "output_ptr", "runs": [[98304, 98432]], "count": 128}
    out = cli("grid", "sample:vector_add", "-a", "n_elements=98432").stdout
    assert "97 programs" in out and "output_ptr[98304:98432]" in out and "masked tail" in out
    # --grid as explain and fit take it: an expression of the arguments and constexprs (numbers only, before)
    given = _grid(cli, "sample:vector_add", "-a", "n_elements=98432", "--grid", "cdiv(n_elements, BLOCK_SIZE // 2)")
    assert len(given["programs"]) == 193 and given["grid"] == [193]


def test_a_float_argument_is_an_fp32_scalar_as_a_launch_passes_it(cli):
    doc = _grid(cli, KERNELS / "float_scalar.py", "-c", "BLOCK=64", "-a", "eps=0.5", "-a", "n=100", "--grid", "2")
    assert [p["stores"][0]["runs"] for p in doc["programs"]] == [[[0, 64]], [[64, 100]]]


def test_a_2d_kernel_with_a_mask(cli):
    doc = _grid(
        cli,
        KERNELS / "masked_2d.py",
        "-a",
        "rows=20",
        "-a",
        "cols=24",
        "-a",
        "stride=24",
        "-c",
        "BLOCK_R=16",
        "-c",
        "BLOCK_C=16",
    )
    programs = {tuple(p["pid"][:2]): p for p in doc["programs"]}
    assert len(programs) == 4
    corner = programs[(1, 1)]["stores"][0]  # rows 16-19, columns 16-23: 4 runs of 8
    assert corner["count"] == 32 and corner["runs"][0] == [16 * 24 + 16, 16 * 24 + 24] and len(corner["runs"]) == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sample:vector_add", "-a", "n_elements=i32"], "needs a value for n_elements"),
        (["sample:softmax"], "the launch grid is unknown"),
        (["sample:vector_add", "--grid", "x"], "--grid x names what is not an argument or constexpr of the kernel"),
        (["sample:vector_add", "--grid", "1,,2"], "--grid expects X[,Y[,Z]]"),
    ],
)
def test_bad_grid_requests(cli, args, message):
    assert message in cli("grid", *args, expect=2).stderr


def test_a_last_tile_cut_short_is_drawn_as_the_next_tile(cli):
    """20 rows in tiles of 16: the last tile's 4 rows start at row 16, which divided by its own height (4)
    put it 4 tiles down, three rows of `.` above it (h19d: a transpose's 2 rows drawn 62 rows down)."""
    shown = cli(
        "grid", KERNELS / "masked_2d.py", "-a", "rows=20", "-a", "cols=24", "-a", "stride=24",
        "-c", "BLOCK_R=16", "-c", "BLOCK_C=16",
    ).stdout  # fmt: skip
    tiles = shown.split("each labelled by its program:", 1)[1].strip().splitlines()
    assert [line.split() for line in tiles] == [["0", "2"], ["1", "3"]]  # axis 0 down the rows
