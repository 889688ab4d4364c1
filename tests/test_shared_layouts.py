"""Shared layouts laid out by tritonscope (analysis/shared_layouts.py) from their TTGIR parameters,
for the releases whose Triton cannot give a shared layout's linear form: held equal to Triton's own
linear layout wherever the running release gives one (3.9 on; CI runs the suite there), and drawn
bank by bank on every release, the banks agreeing with Gluon's own bank-conflict counts."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from conftest import KERNELS, compiled

from tritonscope.analysis import shared_layouts
from tritonscope.core.stages import Stage
from tritonscope.triton_api.version import installed, release_tuple

RELEASE = release_tuple(installed())
GIVES_LINEAR_FORM = RELEASE[:2] >= (3, 9)
GLUON = KERNELS / "gluon"
SHARED = GLUON / "shared_memory.py"
FP16_64 = "tensordesc<fp16[64, 64]>"
MODULE = (
    '#smem = #ttg.shared_memory\nmodule attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, '
    'ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {\n}\n'
)
ELEMENT = {8: "i8", 16: "f16", 32: "f32"}


def _swizzled(vec: int, per: int, most: int, order: list[int]) -> str:
    return f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {per}, maxPhase = {most}, order = {order}}}>"


def _nvmma(swizzle: int, bits: int, transposed: bool, extra: str = "") -> str:
    fields = f"swizzlingByteWidth = {swizzle}, transposed = {str(transposed).lower()}, elementBitWidth = {bits}"
    return f"#ttg.nvmma_shared<{{{fields}{extra}}}>"


LAYOUTS = [
    *[
        (_swizzled(v, p, m, o), shape, 32)
        for v, p, m, o in [(1, 1, 1, [1, 0]), (4, 2, 8, [1, 0]), (8, 1, 8, [0, 1]), (2, 4, 4, [1, 0])]
        for shape in [(64, 64), (32, 128), (16, 8)]
    ],
    (_swizzled(4, 1, 8, [2, 1, 0]), (4, 32, 32), 16),
    (_swizzled(1, 1, 1, [0]), (16,), 32),
    *[
        (_nvmma(swizzle, bits, transposed), shape, bits)
        for swizzle in (0, 32, 64, 128)
        for bits in (8, 16, 32)
        for transposed in (False, True)
        for shape in [(64, 64), (128, 64), (64, 256), (512, 32)]
        if shape[-1 if not transposed else 0] * bits >= 8 * swizzle  # what Triton accepts
    ],
    (_nvmma(128, 16, False, ", rank = 3"), (2, 64, 64), 16),
    (_nvmma(0, 16, False, ", rank = 3"), (2, 64, 64), 16),
    ("#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>", (64, 64), 32),
    ("#ttg.padded_shared<[64:+8, 128:+4] {order = [0, 1], shape = [32, 64]}>", (32, 64), 16),
]


def _triton_offsets(definition: str, shape: tuple[int, ...], element: str) -> list[list[int]]:
    """Triton's own offset bases of a shared layout (its shared linear layout, 3.9 on)."""
    from tritonscope.triton_api.layouts import shared_offsets

    memdesc = f"!ttg.memdesc<{'x'.join(map(str, shape))}x{element}, #shared, #smem, mutable>"
    return shared_offsets(f"#shared = {definition}\n{MODULE}", memdesc, list(shape))["offset"]


@pytest.mark.skipif(not GIVES_LINEAR_FORM, reason="this Triton gives no shared linear layout to compare with")
@pytest.mark.parametrize(("definition", "shape", "bits"), LAYOUTS, ids=lambda x: str(x)[:60])
def test_offsets_equal_tritons_linear_layout(definition, shape, bits):
    mine = shared_layouts.mapping(definition, shape, RELEASE)
    assert mine is not None
    assert mine.offsets == _triton_offsets(definition, shape, ELEMENT[bits])


KERNEL_CASES = [
    (str(SHARED), "sm90", {"kernel": "column_reads", "constexprs": ("BLOCK=64",)}),
    (str(SHARED), "sm90", {"kernel": "column_reads_swizzled", "constexprs": ("BLOCK=64",)}),
    (
        str(GLUON / "hopper.py"),
        "sm90",
        {
            "kernel": "wgmma_tile",
            "constexprs": ("BLOCK_M=64", "BLOCK_N=64", "BLOCK_K=64"),
            "args": (f"a_desc={FP16_64}", f"b_desc={FP16_64}", f"c_desc={FP16_64}"),
        },
    ),
    (
        str(GLUON / "blackwell.py"),
        "sm100",
        {
            "constexprs": ("BLOCK_M=128", "BLOCK_N=64", "BLOCK_K=64"),
            "args": ("a_desc=tensordesc<fp16[128, 64]>", f"b_desc={FP16_64}", "c_desc=tensordesc<fp16[128, 64]>"),
        },
    ),
    (
        str(GLUON / "warp_specialized.py"),
        "sm90",
        {
            "kernel": "pipelined_scale",
            "constexprs": ("STAGES=2", "BLOCK=64"),
            "args": ("in_desc=tensordesc<fp32[64, 64]>", "out_ptr=*fp32", "factor=2.0", "tiles=16"),
        },
    ),
    ("sample:fused_attention_gluon", "sm90", {"kernel": "attention_gluon_kernel"}),  # K and V in 2 buffers
]
_MEMDESC = re.compile(r"!ttg\.memdesc<((?:\d+x)+)(\w+), (#shared\d*), #smem")


@pytest.mark.skipif(not GIVES_LINEAR_FORM, reason="this Triton gives no shared linear layout to compare with")
@pytest.mark.parametrize(
    ("file", "target", "flags"), KERNEL_CASES, ids=lambda x: str(x).split("/")[-1].split(":")[-1][:30]
)
def test_every_shared_layout_of_the_test_kernels_equals_tritons(file, target, flags):
    ttgir = compiled(file, target, **flags).stages[Stage.TTGIR]
    types = set(_MEMDESC.findall(ttgir))
    assert types
    for dims, element, alias in types:
        shape = tuple(int(d) for d in dims.rstrip("x").split("x"))
        definition = shared_layouts.definition(ttgir, alias)
        mine = shared_layouts.mapping(definition, shape, RELEASE)
        if shared_layouts.layout_rank(definition) != len(shape) or shape == (1,):
            continue  # barriers: one element, or a rank-1 layout over buffers (2x1), which Triton refuses
        assert mine is not None and mine.offsets == _triton_offsets(definition, shape, element), (definition, shape)


def test_swizzled_rows_shift_by_vec_times_phase():
    mapping = shared_layouts.mapping(_swizzled(4, 2, 8, [1, 0]), (64, 64))
    # Columns first; then row r at phase r // 2 mod 8: row 2 XORs its columns with 4, row 8 with 16,
    # and row 16's phase wraps to 0.
    assert mapping.offsets[:6] == [[0, 1 << i] for i in range(6)]
    assert mapping.offsets[6:] == [[1, 0], [2, 4], [4, 8], [8, 16], [16, 0], [32, 0]]


def test_nvmma_128_byte_swizzle_of_fp16():
    mapping = shared_layouts.mapping(_nvmma(128, 16, False), (128, 64))
    # 64 fp16 (128 bytes) per row; each of 8 rows XORs 8-element chunks by its index.
    assert mapping.offsets[:9] == [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]]
    assert mapping.offsets[9:] == [[8, 0], [16, 0], [32, 0], [64, 0]]


def test_padding_moves_banks():
    plain = shared_layouts.mapping("#ttg.padded_shared<[64:+1] {order = [1, 0], shape = [64, 64]}>", (64, 64))
    banks = shared_layouts.banks(plain, (64, 64), 32)
    # One f32 of padding after every 64: each row starts one bank later, so a column spreads.
    assert [banks[(r, 0)] for r in range(4)] == [0, 1, 2, 3]
    assert len({banks[(r, 5)] for r in range(32)}) == 32


def test_layouts_not_modelled_give_none():
    split = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], CTAsPerCGA = [2, 1], "
    split += "CTASplitNum = [2, 1], CTAOrder = [1, 0]}>"
    assert shared_layouts.mapping(split, (64, 64)) is None
    assert shared_layouts.mapping(_nvmma(128, 16, False, ", fp4Padded = true"), (64, 64)) is None
    assert shared_layouts.mapping(_nvmma(128, 32, False), (64, 16)) is None  # narrower than the swizzle


def _warp_reads(owners: dict, register: int) -> list[tuple[int, ...]]:
    """The elements warp 0 moves in one instruction: each lane's `register`."""
    return [
        tuple(map(int, element.split(",")))
        for element, holders in owners.items()
        if any(w == 0 and r == register for w, _lane, r in holders)
    ]


@pytest.mark.parametrize(("kernel", "value", "gluon_count"), [("column_reads", "smem", 3)])
def test_drawn_banks_agree_with_gluons_bank_conflicts(cli, kernel, value, gluon_count):
    """On every release (3.6: laid out by tritonscope; 3.9: by Triton): the banks drawn for the plain
    tile, and the 32 elements a warp reads in one ld.shared of the by-columns load, land 4 to a bank:
    4 wavefronts, 3 more than one, Gluon's own count for that load."""
    args = ("layout", "--from", SHARED, "-k", kernel, "-c", "BLOCK=64", "-t", "sm90", "--json")
    drawn = json.loads(cli(*args, "--value", value).stdout)
    assert drawn["banks_from"] == ("triton" if GIVES_LINEAR_FORM else "tritonscope")
    banks = {tuple(map(int, e.split(","))): b for e, b in drawn["banks"].items()}
    assert len(banks) == 64 * 64
    # Row-major f32, 64 to a row (256 bytes, 8 times round the 32 banks): bank = column mod 32.
    assert banks[(0, 0)] == 0 and banks[(0, 31)] == 31 and banks[(0, 32)] == 0 and banks[(5, 7)] == 7
    load = next(a for a in drawn["accesses"] if a["op"] == "local_load")
    assert load["conflicts"] == gluon_count
    loaded = json.loads(cli(*args, "--value", "by_column").stdout)
    reads = _warp_reads(loaded["owners"], 0)
    assert len(reads) == 32
    wavefronts = max(Counter(banks[e] for e in reads).values())
    assert wavefronts - 1 == gluon_count


def test_swizzled_tile_drawn_on_every_release(cli):
    args = ("layout", "--from", SHARED, "-k", "column_reads_swizzled", "-c", "BLOCK=64", "-t", "sm90")
    drawn = json.loads(cli(*args, "--json", "--value", "smem").stdout)
    banks = {tuple(map(int, e.split(","))): b for e, b in drawn["banks"].items()}
    # vec 4, perPhase 2: rows 2-3 XOR their columns with 4, so element (2, 0) sits where (2, 4) would.
    assert [banks[(2, c)] for c in range(8)] == [4, 5, 6, 7, 0, 1, 2, 3]
    load = next(a for a in drawn["accesses"] if a["op"] == "local_load")
    reads = _warp_reads(json.loads(cli(*args, "--json", "--value", "by_column").stdout)["owners"], 0)
    assert load["conflicts"] == 0 and len({banks[e] for e in reads}) == 32
    text = cli(*args, "--value", "smem").stdout
    assert ("laid out by tritonscope" in text) == (not GIVES_LINEAR_FORM)
    assert next(line for line in text.splitlines() if line.startswith(" 2 ")).split()[1:5] == ["4", "5", "6", "7"]


def test_nvmma_tile_drawn_on_every_release(cli):
    """A TMA tile in Hopper's 128-byte swizzle, fp16: 64 to a row (128 bytes, two to a bank), row r's
    16-byte chunks XORed with r mod 8, so each of 8 rows starts 4 banks later and row 8 starts over."""
    descriptor = "tensordesc<fp16[64, 64]>"
    args = ("-a", f"in_desc={descriptor}", "-a", f"out_desc={descriptor}", "-a", "factor=2.0", "-t", "sm90")
    command = ("layout", "--from", GLUON / "hopper.py", "-k", "tma_scale", "-c", "BLOCK_M=64", "-c", "BLOCK_N=64")
    drawn = json.loads(cli(*command, *args, "--value", "tile", "--json").stdout)
    banks = {tuple(map(int, e.split(","))): b for e, b in drawn["banks"].items()}
    assert drawn["bits"] == 16 and len(banks) == 64 * 64
    assert [banks[(r, 0)] for r in range(9)] == [0, 4, 8, 12, 16, 20, 24, 28, 0]
    assert banks[(0, 1)] == 0 and banks[(1, 8)] == 0 and banks[(7, 63)] == 3
    assert [a["conflicts"] is not None for a in drawn["accesses"]] == [True] * len(drawn["accesses"])


def test_a_layout_split_across_ctas_is_not_modelled():
    for split in ("CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]", "CGALayout = [[1, 0]]"):
        text = f"#ttg.nvmma_shared<{{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, {split}}}>"
        assert shared_layouts.mapping(text, (128, 64)) is None
    single = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CGALayout = []}>"
    assert shared_layouts.mapping(single, (128, 64)) is not None
