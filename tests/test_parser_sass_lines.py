"""Properties of the reader of nvdisasm's `//## File ...` line information in a SASS listing."""

from __future__ import annotations

from hostile import large, motifs, repeated, within
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tritonscope.parsers import sass_lines

paths = st.sampled_from(["/d/k.py", "/d/helpers.py", "/x y/k.py", "k.py"])
CODE = [
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;",
    "  /*0a10*/ HFMA2.MMA R9, -RZ, RZ, 0, 0 ;",
    "/*ffff*/ EXIT ;",
]
NOISE = ["", "        .text.add_kernel:", ".L_x_0:", "        // some comment", '        .headerflags @"EF_CUDA_SM90"']


@st.composite
def listings(draw):
    """(listing, expected map): line-info comments, maybe inlined, then instructions. Consecutive
    comments are one inlining stack (nvdisasm since Triton 3.8): their lines add up."""
    lines, expected, current, stacking = [], {}, (), False
    for _ in range(draw(st.integers(0, 25))):
        kind = draw(st.sampled_from(["info", "code", "code", "noise", "section"]))
        if kind == "info":
            where = draw(st.lists(st.tuples(paths, st.integers(0, 10**6)), min_size=1, max_size=4))
            text = f'\t//## File "{where[0][0]}", line {where[0][1]}'
            text += "".join(f' inlined at "{path}", line {line}' for path, line in where[1:])
            lines.append(text)
            found = [*current, *where] if stacking else where
            current = tuple(dict.fromkeys((path, line) for path, line in found if line > 0))
            stacking = True
            continue
        stacking = False
        if kind == "code":
            lines.append(draw(st.sampled_from(CODE)))
            if current:
                expected[len(lines)] = current
        elif kind == "noise":
            lines.append(draw(st.sampled_from(NOISE)))
        else:
            lines.append("\t.section\t.nv.constant0.add_kernel")
            current = ()
    return "\n".join(lines), expected


@settings(max_examples=300, deadline=None)
@given(listing=listings())
def test_lines_found_are_exactly_the_ones_put_in(listing):
    text, expected = listing
    assert sass_lines.parse(text) == expected
    assert [n for n, line in enumerate(text.splitlines(), 1) if sass_lines.is_line_info(line)] == [
        n for n, line in enumerate(text.splitlines(), 1) if "//##" in line
    ]


_FRAGMENTS = ["//## File ", '"', "/d/k.py", '", line ', "1", "99999", " inlined at ", "/*0010*/", " ", "\n", ".section"]


def _check(result: dict) -> None:
    for number, found in result.items():
        assert isinstance(number, int) and number >= 1 and found
        assert all(isinstance(path, str) and isinstance(line, int) and line > 0 for path, line in found)


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.sampled_from('/#File", line0123456789*\n ') | st.characters(), max_size=200))
@example(text='//## File "k.py", line ' + "9" * 5000 + "\n/*0000*/ EXIT ;")
def test_any_text_gives_a_map(text):
    _check(sass_lines.parse(text))


@large
@given(motif=motifs(_FRAGMENTS))
@example(motif=' inlined at "')
def test_large_hostile_text_finishes(motif):
    text = repeated(motif)
    with within():
        _check(sass_lines.parse(text))
        _check(sass_lines.parse('//## File "k.py", line 1' + text.replace("\n", " ") + "\n/*0000*/ EXIT ;"))
        sass_lines.is_line_info(text)


def test_ptx_lines_are_renumbered_and_the_rest_kept():
    listing = (
        '\t//## File "/k/k.py", line 35\n'
        '\t//## File ".nv_debug_ptx_txt", line 3\n'
        "        /*0010*/                   HMMA.16816.F32 R4, R68, R2, R4 ;\n"
        '\t//## File ".nv_debug_ptx_txt", line 9\n'
        "        /*0020*/                   EXIT ;\n"
    )
    renumbered = sass_lines.renumber_ptx_lines(listing, [1, 2, 5])
    assert sass_lines.ptx_lines(renumbered) == {3: 5, 5: 9}  # a line past the list is left as it is
    assert sass_lines.parse(renumbered) == sass_lines.parse(listing)


def test_hgmma_waits_tells_a_pipelined_chain_from_serialized_wgmma():
    from tritonscope.parsers.sass_lines import hgmma_waits

    pipelined = """
        /*0e90*/                   HGMMA.64x128x16.F32 R24, gdesc[UR28], RZ, !UPT ;
        //## File "/k.py", line 14
        /*0f00*/                   HGMMA.64x128x16.F32 R24, gdesc[UR20], R24 ;
        /*0f60*/                   HGMMA.64x128x16.F32 R24, gdesc[UR52], R24, gsb0 ;
        /*0f70*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;
"""
    serialized = """
        /*08b0*/                   HGMMA.64x128x16.F32 R88, gdesc[UR12], RZ, !UPT, gsb0 ;
        /*0ce0*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;
        /*0cf0*/                   WARPGROUP.ARRIVE ;
        /*0d00*/                   HGMMA.64x128x16.F32 R88, gdesc[UR16], R88, gsb0 ;
        /*0d10*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;
"""
    assert hgmma_waits(pipelined) == (3, 1)
    assert hgmma_waits(serialized) == (2, 2)
    assert hgmma_waits("        /*0010*/                   FFMA R1, R2, R3, R4 ;") == (0, 0)


def test_ptxas_performance_losses_are_read_without_the_function_name():
    from tritonscope.parsers.ptxas import performance_losses

    report = (
        "ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
        "non wgmma instructions reading accumulator registers of  a wgmma between start and end of the pipeline "
        "stage in the function 'attention_kernel'\n"
        "ptxas info    : Used 255 registers, used 1 barriers\n"
    )
    assert performance_losses(report) == (
        "wgmma.mma_async instructions are serialized due to non wgmma instructions reading accumulator registers "
        "of a wgmma between start and end of the pipeline stage",
    )
    assert performance_losses(
        "ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
        "insufficient register resources for the function 'k'"
    ) == ("wgmma.mma_async instructions are serialized due to insufficient register resources",)
    assert performance_losses("ptxas info    : Used 40 registers") == ()
