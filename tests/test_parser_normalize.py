"""Properties of the IR normalizers (location stripping, canonical names) shared by every view and diff."""

from __future__ import annotations

import re

from conftest import compiled
from hostile import is_subsequence, large, motifs, repeated, within
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tritonscope.analysis import normalize
from tritonscope.core.stages import Stage
from tritonscope.parsers import asm_loc, llvm_debug, mlir_locations, sass_lines

STAGES = list(Stage)
_STRING = re.compile(r'"(?:\\.|[^"\\])*"')

# --- tl.device_print("value loc(x) = ", x): the literal must survive (issue 14, item 9) ----------------------------

PRINT_KERNEL = """import triton
import triton.language as tl


@triton.jit
def print_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("value loc(x) = ", x)
"""


def test_device_print_literal_survives_location_stripping(tmp_path, cli):
    path = tmp_path / "print_kernel.py"
    path.write_text(PRINT_KERNEL)
    ttir = compiled(str(path), "sm90", constexprs=("BLOCK=16",)).stages[Stage.TTIR]
    (raw,) = [line for line in ttir.splitlines() if "tt.print" in line]
    (literal,) = _STRING.findall(raw[: raw.index("{")])
    assert "value loc(x) =" in literal and raw.endswith(")")  # the op's own loc(#locN) follows
    (shown,) = [text for _, text in normalize.shown(Stage.TTIR, ttir, keep_loc=False) if "tt.print" in text]
    assert shown == raw[: raw.rindex(" loc(")] and literal in shown
    assert literal in "\n".join(normalize.comparable(Stage.TTIR, ttir))
    out = cli("dump", str(path), "-t", "sm90", "--stage", "ttir", "-c", "BLOCK=16").stdout
    assert literal in out and "loc(#" not in out


# --- location stripping: lines kept in order, each only shortened -------------------------------------------------

_LINES = {
    Stage.TTIR: ["%0 = tt.load %p loc(#loc3)", '#loc3 = loc("k.py":3:1)', 'tt.print " a loc(b) " : %0 loc(#loc)', "}"],
    Stage.LLIR: ["%1 = load float, ptr %0, align 4, !dbg !12", "!12 = !DILocation(line: 3, scope: !1)", "ret void"],
    Stage.PTX: [
        "\t.loc\t1 3 1",
        "\tld.global.b32 %r1, [%rd1];",
        '\t.file\t1 "/d/k.py"',
        "\t.section\t.debug_info",
        "{",
    ],
    Stage.SASS: ['\t//## File "/d/k.py", line 3', "        /*0010*/ LDG.E R0, desc[UR4][R2.64] ;", ".L_x_0:"],
    Stage.AMDGCN: [
        "\t.loc\t1 3 1",
        "\tv_add_f32 v0, v1, v2",
        '\t.file\t1 "/d" "k.py"',
        "\t.section\t.debug_str",
        "\t.text",
    ],
}
_LINES[Stage.TTGIR] = _LINES[Stage.TTIR] + ["#blocked = #ttg.blocked<{order = [0]}>"]


def _noise(stage: Stage, text: str) -> bool:
    """Whether a line is location noise in its own right (dropped whole)."""
    if stage in (Stage.TTIR, Stage.TTGIR):
        return mlir_locations.is_alias_definition(text)
    if stage is Stage.LLIR:
        return llvm_debug.is_debug_noise(text)
    if stage in (Stage.PTX, Stage.AMDGCN):
        return asm_loc.is_directive(text)
    return stage is Stage.SASS and sass_lines.is_line_info(text)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), stage=st.sampled_from(STAGES))
def test_strip_locations_keeps_lines_in_order_and_only_shortens_them(data, stage):
    pool = _LINES.get(stage, ["def f():", "    return 1"])
    lines = data.draw(st.lists(st.sampled_from(pool) | st.text(max_size=30).map(lambda t: t.replace("\n", ""))))
    text = "\n".join(lines)
    listing = normalize.listing(text)
    assert [n for n, _ in listing] == list(range(1, len(text.splitlines()) + 1))
    stripped = normalize.strip_locations(stage, listing)
    original = dict(listing)
    numbers = [n for n, _ in stripped]
    assert numbers == sorted(set(numbers)) and set(numbers) <= set(original)
    for number, kept in stripped:
        assert is_subsequence(kept, original[number]) and not _noise(stage, original[number])
        if stage in (Stage.TTIR, Stage.TTGIR):
            assert kept == mlir_locations.without_locations(original[number])
            assert _STRING.findall(kept) == _STRING.findall(original[number].replace(" loc(#loc3)", ""))
    assert normalize.shown(stage, text, keep_loc=True) == listing
    assert normalize.shown(stage, text, keep_loc=False) == stripped
    wanted = set(data.draw(st.lists(st.integers(1, len(listing) + 1))))
    assert normalize.only(stripped, wanted) == [(n, t) for n, t in stripped if n in wanted]


# --- canonical names: the same structure prints the same, whatever the numbering ----------------------------------


@st.composite
def renumbered(draw):
    """(stage, text A, text B): one program printed twice with different value, register and alias numbers."""
    stage = draw(st.sampled_from([Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS]))
    bases = ["x", "offsets", "mask", "acc"] if stage is not Stage.PTX else ["r", "rd", "f", "p"]
    values = draw(st.lists(st.sampled_from(bases), min_size=1, max_size=8))  # one base per value
    lines = draw(st.lists(st.lists(st.integers(0, len(values) - 1), min_size=1, max_size=4), max_size=8))

    def numbering():  # per value a distinct suffix, independently drawn for each printing
        numbers = draw(st.lists(st.integers(0, 999), min_size=len(values), max_size=len(values), unique=True))
        return [None if n == 0 and stage is not Stage.PTX else n for n in numbers]

    def render(numbers) -> str:
        if stage is Stage.SASS:  # addresses go, labels are renumbered
            return "\n".join(
                f"/*{16 * i:04x}*/ BRA `(.L_x_{numbers[v[0]] or 0}) ;" if len(v) % 2 else f"/*{16 * i:04x}*/ EXIT ;"
                for i, v in enumerate(lines)
            )
        if stage is Stage.PTX:
            name = [f"%{values[v]}{numbers[v]}" for v in range(len(values))]
        elif (
            stage is Stage.LLIR
        ):  # numbered values; names as MLIR prints them (LLVM's own `.N` suffixes are not renamed)
            name = [
                f"%{numbers[v] or 0}" if values[v] == "x" else _mlir_name(values[v], numbers[v])
                for v in range(len(values))
            ]
        else:
            name = [_mlir_name(values[v], numbers[v]) for v in range(len(values))]
        layout = " : tensor<4xf32, #blocked{}>" if stage is Stage.TTGIR else ""
        return "\n".join(
            "op " + ", ".join(name[v] for v in line) + layout.format(numbers[line[0]] or "") for line in lines
        )

    return stage, render(numbering()), render(numbering())


def _mlir_name(base: str, number: int | None) -> str:
    return f"%{base}" if number is None else f"%{base}_{number}"


@settings(max_examples=300, deadline=None)
@given(case=renumbered())
def test_canonical_names_ignore_the_numbering(case):
    stage, first, second = case
    one = stage.info.rename(normalize.listing(first))
    assert one == stage.info.rename(normalize.listing(second))
    assert [n for n, _ in one] == [n for n, _ in normalize.listing(first)]
    assert normalize.comparable(stage, first) == normalize.comparable(stage, second)


@given(
    ops=st.lists(st.sampled_from(["%0 = tt.load %p", "tt.store %p, %0", "%1 = arith.addf %0, %0"]), max_size=6),
    first=st.integers(0, 99),
    second=st.integers(0, 99),
)
def test_comparable_ignores_locations(ops, first, second):
    def printed(n: int) -> str:
        body = [f"{op} loc(#loc{n + i})" for i, op in enumerate(ops)]
        return "\n".join(body + [f'#loc{n + i} = loc("k.py":{i + 1}:{n})' for i in range(len(ops))])

    assert normalize.comparable(Stage.TTIR, printed(first)) == normalize.comparable(Stage.TTIR, printed(second))
    assert normalize.comparable(Stage.TTIR, printed(first)) == normalize.comparable(Stage.TTIR, "\n".join(ops))


# --- anything at all, 100 KB of it: finishes -----------------------------------------------------------------------

_FRAGMENTS = [
    "%",
    "a",
    "_1",
    "1",
    "#",
    "blocked",
    "loc(",
    ")",
    '"',
    "\n",
    " ",
    ".L_x_",
    "/*0010*/",
    "!dbg !1",
    "$",
    ".",
]
_FRAGMENTS += [".loc 1 1 1", ".section .debug", "//## File ", "<", "r", ",", "_"]


@large
@given(motif=motifs(_FRAGMENTS), stage=st.sampled_from(STAGES))
@example(motif="loc(", stage=Stage.TTIR)
@example(motif="a_1", stage=Stage.TTGIR)
@example(motif="#a1", stage=Stage.TTGIR)
def test_large_hostile_text_finishes(motif, stage):
    text = repeated(motif)
    with within():
        for variant in (text, text.replace("\n", " ")):
            assert len(normalize.shown(stage, variant, keep_loc=False)) <= len(variant.splitlines())
            normalize.comparable(stage, variant)
