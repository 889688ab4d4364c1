"""The control-code decoder (parsers/sass_control.py) on published instruction words and on real
compiled kernels of every NVIDIA target the bundled nvdisasm reads; the scoreboard invariant
(tests/sass_invariant.py) on each; and the dependencies analysis/scoreboards.py names."""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
import triton
from conftest import compiled
from sass_invariant import violations

from tritonscope.analysis import artifacts, scoreboards
from tritonscope.core.errors import TritonscopeError
from tritonscope.core.model import Artifacts
from tritonscope.core.samples import all_samples
from tritonscope.core.stages import Stage
from tritonscope.parsers import cubin_code, sass_control, sass_listing
from tritonscope.parsers.errors import ParseError

# Instruction words and the control codes CuAssembler prints for them: the NOP it pads code with
# (CuAsm/CuSMVersion.py, PadBytes_7x_8x, "[B------:R-:W-:Y:S00]"), and the first instructions of
# _Z7argtestPiS_S_ in its Turing test (TestData/CuTest/cudatest.7.sm_75.cubin, the words at these
# offsets of .text._Z7argtestPiS_S_; cudatest.7.sm_75.cuasm lines 2891-2913 print their codes).
PUBLISHED = [
    (0x000FC00000000000_0000000000007918, "B------:R-:W-:Y:S00", "NOP (padding)"),
    (0x000FD000078E00FF_00000A00FF017624, "B------:R-:W-:Y:S08", "IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28]"),
    (0x000EA2000C1EE900_00000024FF057981, "B------:R-:W2:-:S01", "LDG.E.SYS R5, [UR36]"),
    (0x00012800001EE900_0000000012057381, "B------:R0:W4:-:S04", "LDG.E.SYS R5, [R18]"),
    (0x00406E0000000A00_0080000002067B82, "B--2---:R0:W1:-:S07", "LDC.64 R6, c[0x2][R2]"),
    (0x013FEA0003C3FFFF_FFFFFED006007344, "B01--4-:R-:W-:-:S05", "CALL.REL.NOINC R6"),
    (0x001FC800004000003EB333330A097820, "B0-----:R-:W-:Y:S04", "FMUL R9, R10, 0.35"),
]
TARGETS = ("sm75", "sm80", "sm86", "sm89", "sm90", "sm100", "sm120")  # every one the bundled nvdisasm reads
KERNELS = ("vector_add", "softmax", "layernorm", "row_sum", "matmul", "fused_attention")
ALL_SAMPLES = tuple(s.name for s in all_samples())


@pytest.mark.parametrize(("word", "printed", "what"), PUBLISHED, ids=[p[2] for p in PUBLISHED])
def test_published_control_codes(word, printed, what):
    assert sass_control.decode_word(word).text == printed


def test_fields_of_one_word():
    """B01--4-:R-:W-:-:S05: waits on scoreboards 0, 1 and 4, sets none, no yield, 5 cycles."""
    control = sass_control.decode_word(0x013FEA0003C3FFFF_FFFFFED006007344)
    assert (control.wait, control.read, control.write, control.yield_hint, control.stall) == (
        (0, 1, 4),
        None,
        None,
        False,
        5,
    )


def test_layout_evidence_says_where_it_is_unpublished():
    assert "published" in sass_control.layout_evidence(90)
    assert sass_control.layout_evidence(100) == sass_control.UNPUBLISHED
    assert "nvdisasm" in sass_control.layout_evidence(120)
    with pytest.raises(Exception, match="before Volta"):
        sass_control.layout_evidence(61)


def test_a_damaged_binary_or_listing_is_tritonscopes_error_with_the_parsers_words():
    """The parsers raise their own ParseError (they import nothing of tritonscope); where analysis/
    reads a compile's artifacts through them it becomes a TritonscopeError (exit 2) saying the same."""
    c = compiled("sample:vector_add", "sm90")
    with pytest.raises(ParseError, match="not a 64-bit ELF file"):
        cubin_code.kernel_code(c.binary[:2] + b"\x00" * 62, "add_kernel")
    with pytest.raises(TritonscopeError, match="not a 64-bit ELF file") as raised:
        scoreboards.schedule(replace(c, binary=c.binary[:2] + b"\x00" * 62))
    assert raised.value.exit_code == 2 and not isinstance(raised.value, ParseError)
    with pytest.raises(TritonscopeError, match="the cubin's section table cannot be read"):
        scoreboards.schedule(replace(c, binary=c.binary[:200]))
    listing = Artifacts({"resource_usage": "Resource usage:\n"}, c.binary, dict(c.metadata))
    with pytest.raises(TritonscopeError, match="cuobjdump reported no resource usage for add_kernel") as raised:
        artifacts.read_resources(c.variant.target_info, listing)
    assert raised.value.exit_code == 2 and raised.value.__cause__ is None


def _nvdisasm(binary: bytes, *flags: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.cubin"
        path.write_bytes(binary)
        run = subprocess.run([triton.knobs.nvidia.nvdisasm.path, *flags, str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout


def _decoded(c):
    code = cubin_code.kernel_code(c.binary, c.metadata["name"])
    return code, sass_control.decode(code)


@pytest.mark.parametrize("target", TARGETS)
def test_words_are_those_nvdisasm_prints_and_reuse_flags_agree(target):
    """The cubin's code section holds the words `nvdisasm -hex` prints, offset by offset; the reuse
    bits decoded are nvdisasm's own `.reuse` marks on every instruction."""
    c = compiled("sample:softmax", target)
    code, controls = _decoded(c)
    words = sass_control.words(code)
    listing = _nvdisasm(c.binary, "-hex", "-c")
    pairs = re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);\s*/\* (0x[0-9a-f]+) \*/\s*\n\s*/\* (0x[0-9a-f]+) \*/", listing)
    assert len(pairs) == len(words) > 20
    for offset, text, low, high in pairs:
        assert words[int(offset, 16)] == int(low, 16) | int(high, 16) << 64
        assert text.count(".reuse") == len(controls[int(offset, 16)].reuse), text


def test_sm120_fields_agree_with_nvdisasm_own_annotations():
    """For sm120, CUDA 12.8's nvdisasm prints the fields itself: &req={...} (the wait mask), &rd, &wr,
    ?transN (stall N) or ?WAITN_END_GROUP (stall N and the yield hint). CUDA 13's (Triton 3.9's) prints
    none of them, so there is nothing to hold the decoder to."""
    checked = 0
    for name in ("softmax", "matmul", "layernorm"):
        c = compiled(f"sample:{name}", "sm120")
        if not re.search(r"\?(trans|WAIT)\d+", c.stages[Stage.SASS]):
            pytest.skip("this nvdisasm prints no control-code annotations for sm120 (CUDA 12.8's does)")
        _, controls = _decoded(c)
        for line in c.stages[Stage.SASS].splitlines():
            match = re.match(r"\s*/\*([0-9a-f]+)\*/\s*(.*)", line)
            if not match:
                continue
            control, text = controls[int(match.group(1), 16)], match.group(2)
            req = re.search(r"&req=\{([\d,]*)\}", text)
            assert set(control.wait) == ({int(b) for b in req.group(1).split(",") if b} if req else set()), text
            for field, value in (("rd", control.read), ("wr", control.write)):
                shown = re.search(rf"&{field}=0x(\d)", text)
                assert value == (int(shown.group(1)) if shown else None), text
            stall = re.search(r"\?(trans|WAIT)(\d+)", text)
            if stall:
                assert (int(stall.group(2)), stall.group(1) == "WAIT") == (control.stall, control.yield_hint), text
                checked += 1
    assert checked > 500


def _kernels(target: str) -> tuple[str, ...]:
    return ALL_SAMPLES if target == "sm90" else KERNELS


@pytest.mark.parametrize("target", TARGETS)
def test_every_variable_latency_result_is_waited_for(target):
    """The invariant on every kernel compiled here: no violation, and waits that name producers."""
    checked = 0
    for name in _kernels(target):
        try:
            c = compiled(f"sample:{name}", target)
        except Exception:  # noqa: BLE001 - a sample this target cannot compile (wgmma, TMA on sm75)
            continue
        listing = sass_listing.parse(c.stages[Stage.SASS])
        _, controls = _decoded(c)
        assert violations(listing, controls) == [], (name, target)
        waits = [w for ws in scoreboards.waits(listing, controls).values() for w in ws]
        assert waits and sum(bool(w.producers) for w in waits) >= 0.9 * len(waits), (name, target)
        checked += 1
    assert checked >= 5


def test_the_invariant_catches_a_wrong_layout():
    """Read with the wait mask one bit off, the same code breaks the invariant: the test above can fail."""
    c = compiled("sample:softmax", "sm90")
    listing = sass_listing.parse(c.stages[Stage.SASS])
    _, controls = _decoded(c)
    shifted = {
        o: sass_control.Control(k.stall, k.yield_hint, k.write, k.read, tuple((b + 1) % 6 for b in k.wait), k.reuse)
        for o, k in controls.items()
    }
    assert len(violations(listing, shifted)) > 3


def test_a_wait_names_the_loads_and_their_line():
    """vector_add's `output = x + y` waits on the scoreboard its loads set: the FADD's wait names the
    LDGs, and they are on the lines of `tl.load`."""
    c = compiled("sample:vector_add", "sm90")
    schedule = scoreboards.schedule(c)
    by_offset = {s.offset: s for s in schedule.instructions}
    fadd = next(s for s in schedule.instructions if s.opcode.startswith("FADD") and s.waits)
    producers = [by_offset[p] for w in fadd.waits for p in w.producers]
    assert producers and all(p.opcode.startswith("LDG") for p in producers)
    source = c.kernel.source.splitlines()
    load_lines = {p.lines[0] for p in producers}
    assert all("tl.load" in source[n - c.kernel.first_line] for n in load_lines)
    assert "x + y" in source[fadd.lines[0] - c.kernel.first_line]


def test_loop_carried_wait_is_found():
    """matmul pipelines its loads: the DEPBAR at the top of the loop waits on the commit (LDGDEPBAR)
    issued at the end of the previous iteration, found through the loop's back edge."""
    c = compiled("sample:matmul", "sm90")
    listing = sass_listing.parse(c.stages[Stage.SASS])
    _, controls = _decoded(c)
    steps = {s.offset: s for s in listing.instructions}
    depbars = [
        w for ws in scoreboards.waits(listing, controls).values() for w in ws if steps[w.offset].base == "DEPBAR"
    ]
    assert depbars
    carried = [w for w in depbars if any(p > w.offset for p in w.producers)]
    assert carried and all(steps[p].base == "LDGDEPBAR" for w in carried for p in w.producers)
    groups = scoreboards.groups(listing)
    assert all(steps[m].base == "LDGSTS" for w in carried for p in w.producers for m in groups[p])
