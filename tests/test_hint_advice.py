"""The narrow-access advice names what kept each argument from its hint, as the user gave it: a value,
a type, nothing (assumed), a capture's recorded launch; --no-specialize or the kernel's own
do_not_specialize / do_not_specialize_on_alignment. The what-if compiles every change the advice names,
and the advice promises 128-bit accesses only where that compile gave them (issue 55 items 1 and 2).
Real compiles of kernels written here, on the CPU."""

from __future__ import annotations

import json
import sys
import textwrap
from dataclasses import replace

import pytest
from conftest import make_request

from tritonscope.agent.summaries import summary
from tritonscope.analysis import findings
from tritonscope.app.explain import explain
from tritonscope.render.registry import render

COPY = """\
import triton
import triton.language as tl


@triton.jit({decorator})
def copy(x_ptr, y_ptr, stride, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs * stride, mask=mask), mask=mask)
"""
ACCESS = 9  # the line of the load and the store
DECORATOR = 5

ROWS = """\
import triton
import triton.language as tl


@triton.jit
def row_copy(x_ptr, y_ptr, stride_row, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_row + cols, mask=mask)
    tl.store(y_ptr + row * stride_row + cols, x, mask=mask)
"""
LOAD = 10

PROGRAM = """\
import torch
from rows import row_copy

x = torch.randn(64, 1000, device="cuda")
y = torch.empty_like(x)
row_copy[(64,)](x, y, x.stride(0), 1000, BLOCK=1024)
"""


def narrow_on(result, line: int):
    return next(f for f in result.findings if f.kind == findings.NARROW and f.line == line)


@pytest.fixture
def kernel(tmp_path):
    def write(decorator: str, text: str = COPY, name: str = "k.py"):
        path = tmp_path / name
        path.write_text(text.format(decorator=decorator))
        return str(path)

    return write


def test_an_argument_in_do_not_specialize_is_named_so_and_dropping_it_is_compiled(kernel):
    file = kernel('do_not_specialize=["n"]')
    result = explain(make_request(file, args=["n=4100", "stride=1"], constexprs=["BLOCK=1024"], dtype="fp32"))
    found = narrow_on(result, ACCESS)
    assert f"n is in the kernel's do_not_specialize at line {DECORATOR}" in found.message
    assert "no hint whatever its value" in found.message and "n=4100 is not a multiple of 16 either" in found.message
    assert f"drop n from do_not_specialize in the kernel's decorator at line {DECORATOR}" in found.suggestion
    assert "128 bits" not in found.suggestion  # promised only by what the compile gave
    assert set(found.what_if) == {("decorator", "do_not_specialize", "n"), ("arg", "n", 4112)}
    assert found.verified.startswith("-a n=4112 and n dropped from do_not_specialize:")
    assert f"line {ACCESS}: 4 x 128-bit: the accesses widen to 128 bits" in found.verified


def test_a_multiple_of_16_in_do_not_specialize_needs_only_the_decorator_dropped(kernel):
    file = kernel("do_not_specialize=[3]")  # by position, as Triton takes it too
    result = explain(make_request(file, args=["n=4096", "stride=1"], constexprs=["BLOCK=1024"], dtype="fp32"))
    found = narrow_on(result, ACCESS)
    assert "n=4096 is a multiple of 16 but has no hint: n is in the kernel's do_not_specialize at line 5" in (
        found.message
    )
    assert found.what_if == (("decorator", "do_not_specialize", "n"),)
    assert found.verified.startswith("with n dropped from do_not_specialize:") and "widen to 128" in found.verified


def test_advice_its_what_if_leaves_as_narrow_is_withdrawn(kernel):
    """A strided load (`offs * stride`, stride 2) stays 32 bits whatever n's hint: the what-if says so,
    and the advice to drop n from do_not_specialize (fla's `T`) is not left standing beside it."""
    file = kernel("do_not_specialize=[3]")
    result = explain(make_request(file, args=["n=4096", "stride=2"], constexprs=["BLOCK=1024"], dtype="fp32"))
    found = narrow_on(result, ACCESS)
    assert "still 32 bits, not 128" in found.verified, found.verified
    assert (
        found.suggestion.startswith("none that the what-if bears out") and "do_not_specialize" not in found.suggestion
    )


def test_a_what_if_that_missed_its_aim_but_raised_occupancy_says_so(kernel):
    """fla's chunk_o: T dropped from do_not_specialize left its accesses 32 bits, but took 146 registers to
    127 and occupancy from 12.5% to 25%; the advice said only "none that the what-if bears out" (h18a)."""
    from conftest import compiled

    from tritonscope.app.explain import _other_gain

    file = kernel("do_not_specialize=[3]")
    flags = {"args": ("n=4096", "stride=2"), "constexprs": ("BLOCK=1024",), "dtype": "fp32"}
    one, four = compiled(file, num_warps=1, **flags), compiled(file, num_warps=4, **flags)
    before, after = one.resources.occupancy.percent, four.resources.occupancy.percent
    assert after > before
    gain = _other_gain(one, four)
    assert gain.startswith(f"; it did raise occupancy from {before:.3g}% to {after:.3g}% (")
    assert f"{one.resources.registers} to {four.resources.registers} registers" in gain
    assert _other_gain(four, one) == ""  # no gain: nothing added


def test_do_not_specialize_on_alignment_is_named_for_a_pointer_and_an_integer(kernel):
    file = kernel('do_not_specialize_on_alignment=["x_ptr", "n"]')
    result = explain(make_request(file, args=["n=4096", "stride=1"], constexprs=["BLOCK=1024"], dtype="fp32"))
    found = narrow_on(result, ACCESS)
    assert "x_ptr is in the kernel's do_not_specialize_on_alignment at line 5, so the launcher does not mark it" in (
        found.message
    )
    assert "n is in the kernel's do_not_specialize_on_alignment at line 5" in found.message
    assert "drop x_ptr and n from do_not_specialize_on_alignment" in found.suggestion
    assert found.verified.startswith("with x_ptr and n dropped from do_not_specialize_on_alignment:")
    assert "the accesses widen to 128 bits" in found.verified


def test_no_specialize_and_do_not_specialize_are_both_lifted_by_the_what_if(kernel):
    file = kernel('do_not_specialize=["n"]')
    request = make_request(file, args=["n=4100", "stride=1"], constexprs=["BLOCK=1024"], dtype="fp32")
    found = narrow_on(explain(replace(request, specialize=False)), ACCESS)
    assert "n is under --no-specialize and in the kernel's do_not_specialize at line 5" in found.message
    assert {("option", "specialize", True), ("decorator", "do_not_specialize", "n"), ("arg", "n", 4112)} <= set(
        found.what_if
    )
    assert "the accesses widen to 128 bits" in found.verified


def test_an_argument_not_given_is_said_assumed_and_given_a_value_in_the_what_if(kernel):
    file = kernel("", ROWS, "rows.py")
    result = explain(make_request(file, args=["n_cols=1000"], constexprs=["BLOCK=4096"], dtype="fp32"))
    found = narrow_on(result, LOAD)
    assert "stride_row was not given: tritonscope assumed an i32, so nothing is known of its value" in found.message
    assert "given as a type" not in found.message and "n_cols=1000 is not a multiple of 16" in found.message
    assert "give stride_row as a real launch passes it (-a stride_row=VALUE)" in found.suggestion
    assert found.what_if == (("arg", "stride_row", 16), ("arg", "n_cols", 1008))  # every argument it names
    assert f"line {LOAD}: 8 x 128-bit: the accesses widen to 128 bits" in found.verified


def test_an_argument_given_as_a_type_is_said_so(kernel):
    file = kernel("", ROWS, "rows.py")
    result = explain(
        make_request(file, args=["n_cols=1008", "stride_row=i64"], constexprs=["BLOCK=4096"], dtype="fp32")
    )
    found = narrow_on(result, LOAD)
    assert "stride_row is given as the type i64, so nothing is known of its value" in found.message
    assert found.what_if == (("arg", "stride_row", 2**31 + 16),)  # a multiple of 16 that stays an i64
    assert "the accesses widen to 128 bits" in found.verified


def test_a_layout_of_one_element_per_thread_is_the_cause_whatever_the_hints(kernel):
    """One f32 per thread caps the accesses at 32 bits: no hint could widen them, so the layout alone is
    named (n=4100, not a multiple of 16, was named instead, and its what-if stayed at 32 bits)."""
    file = kernel('do_not_specialize=["n"]')
    request = make_request(file, args=["n=4100", "stride=1"], constexprs=["BLOCK=32"], dtype="fp32", num_warps=1)
    found = narrow_on(explain(request), ACCESS)
    assert "each thread holds only 1 contiguous f32 along dim 0 (32 bits; 128 needs 4)" in found.message
    assert "n=4100" not in found.message and "do_not_specialize" not in found.message and not found.what_if
    assert "a larger BLOCK along the contiguous dimension, fewer warps" in found.suggestion


def test_a_layout_of_two_elements_per_thread_names_both_and_the_what_if_says_how_far_it_widens(kernel):
    file = kernel('do_not_specialize=["n"]')
    request = make_request(file, args=["n=4100", "stride=1"], constexprs=["BLOCK=64"], dtype="fp32", num_warps=1)
    found = narrow_on(explain(request), ACCESS)
    assert "n=4100 is not a multiple of 16 either" in found.message and "2 contiguous f32" in found.message
    assert found.suggestion.endswith("a larger BLOCK along the contiguous dimension, fewer warps")
    assert "2 x 64-bit: still 64 bits, not 128" in found.verified, found.verified


def test_check_and_the_agents_summary_say_the_same(kernel, cli):
    file = kernel('do_not_specialize=["n"]')
    out = cli(
        *("check", file, "-a", "n=4100", "-a", "stride=1", "-c", "BLOCK=1024", "--dtype", "fp32", "-t", "sm90"),
        *("--budget", "global_load_bits>=128"),
        expect=1,
    ).stdout
    assert "n is in the kernel's do_not_specialize at line 5" in " ".join(out.split())
    result = explain(make_request(file, args=["n=4100", "stride=1"], constexprs=["BLOCK=1024"], dtype="fp32"))
    said = summary(json.loads(render(result, "json")))
    assert "n is in the kernel's do_not_specialize at line 5" in said and "divisibility hint" not in said


def test_a_captures_recorded_value_is_named_with_its_launch(kernel, cli, tmp_path):
    kernel("", ROWS, "rows.py")
    (tmp_path / "prog.py").write_text(textwrap.dedent(PROGRAM))
    capture = tmp_path / "cap"
    cli("trace", "--target", "sm90", "-o", capture, "--", sys.executable, tmp_path / "prog.py")
    document = json.loads(cli("explain", f"{capture}/:row_copy", "--json").stdout)
    found = next(f for f in document["findings"] if f["kind"] == findings.NARROW and f["line"] == LOAD)
    assert "stride_row=1000 at its recorded launch is not a multiple of 16" in found["message"]
    assert "n_cols=1000 at its recorded launch" in found["message"] and "given as a type" not in found["message"]
    assert "launch with stride_row and n_cols multiples of 16" in found["suggestion"]
    assert "-a NAME" not in found["suggestion"] and "128 bits" not in found["suggestion"]  # nothing compiled
    out = cli("check", capture, "--budget", "global_load_bits>=128", expect=1).stdout
    assert "stride_row=1000 at its recorded launch" in " ".join(out.split())


def test_occupancy_advice_says_when_its_cap_spills_and_when_the_launch_is_all_resident():
    """Triton's tutorial 05 (dW, dB): `--maxnreg 48 reaches 5 blocks per SM, if the code fits without
    spilling` stood beside its own compile's 2 spills, and for a launch of 32 blocks on 132 SMs, which
    more blocks per SM cannot speed up (h19a)."""
    from conftest import KERNELS

    file = str(KERNELS / "launch" / "dwdb.py")
    result = explain(make_request(file, "sm90", num_warps=8))
    (found,) = [f for f in result.findings if f.kind == findings.OCCUPANCY]
    assert found.what_if == (("option", "maxnreg", 48),) and "2 spills" in found.verified
    assert found.suggestion.startswith("not a register cap: the code does not fit in it (2 spills more")
    assert "this launch's 32 blocks are all resident at once already (one wave at 4 blocks per SM" in (found.suggestion)
    # a launch of more waves keeps the advice as it was, but for the spills
    many = explain(make_request(file, "sm90", num_warps=8, args=("N=1048576",)))
    (kept,) = [f for f in many.findings if f.kind == findings.OCCUPANCY]
    assert "all resident" not in kept.suggestion


def test_a_narrow_access_of_the_layouts_making_compiles_fewer_warps():
    """Each thread holds one f32 of a 128-element block over 4 warps: "fewer warps" was said, never
    compiled (h19a: flash-attention's rotary at -w 2 widened its loads but added a conversion through
    shared memory and lost occupancy, which only the compile shows)."""
    from conftest import KERNELS

    result = explain(make_request(str(KERNELS / "launch" / "copy.py"), constexprs=("BLOCK=128",), num_warps=4))
    (found,) = [f for f in result.findings if f.kind == findings.NARROW]
    assert "each thread holds only 1 contiguous f32" in found.message
    assert found.what_if == (("option", "num_warps", 2),)
    assert found.verified.startswith("--num-warps 2: ") and "2 x 64-bit: still 64 bits, not 128" in found.verified


def test_a_strided_access_is_said_to_be_one_no_hint_or_layout_widens():
    """flash-linear-attention's cumsum reads a column, `s + o_t * H`: the finding named the hints Triton
    lacked (T in do_not_specialize) and the layout, then withdrew that advice after its what-if (h18a).
    It says the elements lie apart, compiles nothing, and says how to read along the rows."""
    from conftest import KERNELS

    file = str(KERNELS / "launch" / "strided.py")
    result = explain(make_request(file, constexprs=("H=16", "MODE=0"), args=("T=1048576",)))
    (found,) = [f for f in result.findings if f.kind == findings.NARROW]
    assert "the elements a thread accesses lie 64 bytes apart in memory (a stride)" in found.message
    assert found.what_if == () and not found.verified and "2-D tile" in found.suggestion
    side_by_side = explain(make_request(file, constexprs=("H=1", "MODE=0"), args=("T=1048576",)))
    assert not any("apart in memory" in f.message for f in side_by_side.findings)
