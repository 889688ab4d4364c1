"""Properties of the pass-by-pass dump reader (MLIR_ENABLE_DUMP, LLVM_IR_ENABLE_DUMP)."""

from __future__ import annotations

import pytest
from hostile import large, motifs, repeated, within
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tritonscope.parsers import pass_dump
from tritonscope.parsers.pass_dump import FINAL_HEADER, LlvmSnapshot, PassDumpError, Snapshot

words = st.from_regex(r"[A-Za-z][\w.-]{0,15}", fullmatch=True)
ir_lines = st.lists(
    st.sampled_from(
        ["module {", "  %0 = arith.constant 1 : i32", "}", "", "  tt.return loc(#loc2)", "#loc2 = loc(unknown)"]
        + ['  tt.print " Failed *** " : %0', "define void @k() {", "  ret void", "; a comment", "// a comment"]
    ),
    max_size=6,
)


def _joined(lines: list[str]) -> str:
    return "\n".join(lines).strip("\n")


@st.composite
def mlir_dumps(draw):
    """(dump, expected snapshots, expected final module)."""
    lines, snapshots = [], []
    for _ in range(draw(st.integers(1, 5))):
        name, argument, scope = (
            draw(words),
            draw(st.just("") | words),
            draw(st.sampled_from(["builtin.module", "tt.func"])),
        )
        function = draw(st.sampled_from(["", ": @add_kernel", ": add_kernel"]))
        body = draw(ir_lines)
        lines += [f"// -----// IR Dump Before {name} ({argument}) ('{scope}' operation{function}) //----- //", *body]
        snapshot = Snapshot(name, argument, scope, _joined(body))
        for _ in range(draw(st.integers(0, 2))):
            owner, step, step_body = draw(words), draw(words), draw(ir_lines)
            lines += [f"// -----// {owner} internal IR Dump After: {step}", *step_body]
            snapshot.substeps.append((f"{owner}: {step}", _joined(step_body)))
        if draw(st.booleans()):  # output that belongs to no snapshot
            lines += [
                draw(
                    st.sampled_from(
                        [
                            f"// -----// IR Dump After {name} Failed ('tt.func' operation) //----- //",
                            f"; *** IR Dump After {name} on add_kernel ***",
                        ]
                    )
                ),
                *draw(ir_lines),
            ]
        snapshots.append(snapshot)
    final = None
    if draw(st.booleans()):
        body = draw(ir_lines)
        lines += [FINAL_HEADER, *body]
        final = _joined(body)
    return "\n".join(lines), snapshots, final


@settings(max_examples=300, deadline=None)
@given(dump=mlir_dumps())
def test_mlir_snapshots_read_back(dump):
    text, snapshots, final = dump
    assert pass_dump.parse_mlir(text) == (snapshots, final)


@st.composite
def llvm_dumps(draw):
    """(dump, expected snapshots): passes that printed the IR, omitted it, or were filtered out."""
    lines, expected = [], []
    for _ in range(draw(st.integers(0, 6))):
        name, scope = draw(words), draw(st.sampled_from(["[module]", "add_kernel", "a b", "f (x)"]))
        kind = draw(
            st.sampled_from(["printed", "printed", "omitted because no change", "filtered out", "(invalidated)"])
        )
        if kind == "printed":
            body = draw(ir_lines)
            tail = draw(st.sampled_from(["", " (function: add_kernel)", "  "]))
            lines += [f"; *** IR Dump After {name} on {scope} ***{tail}", *body]
            expected.append(LlvmSnapshot(name, scope, _joined(body)))
        else:
            lines.append(f"; *** IR Dump After {name} on {scope} {kind} ***")
            if kind == "omitted because no change":
                expected.append(LlvmSnapshot(name, scope, None))
        if draw(st.booleans()):  # MLIR output between LLVM's belongs to no LLVM snapshot
            lines += ["// -----// IR Dump Before P (p) ('builtin.module' operation) //----- //", *draw(ir_lines)]
    return "\n".join(lines), expected


@settings(max_examples=300, deadline=None)
@given(dump=llvm_dumps())
def test_llvm_snapshots_read_back(dump):
    text, expected = dump
    assert pass_dump.parse_llvm(text) == expected


# --- anything at all: snapshots or a PassDumpError, fast ---------------------------------------------------------

_FRAGMENTS = [
    "// -----// IR Dump Before ",
    "// -----// IR Dump After ",
    " Failed ",
    "//----- //",
    "; *** IR Dump After ",
]
_FRAGMENTS += [" on ", " ***", "(", ")", "'", " operation", ": @", " internal IR Dump After: ", " ", "\n", "x", "\t"]


def _parse_all(text: str) -> None:
    try:
        snapshots, final = pass_dump.parse_mlir(text)
    except PassDumpError:
        pass
    else:
        assert (
            snapshots and all(isinstance(s.text, str) for s in snapshots) and (final is None or isinstance(final, str))
        )
    assert all(isinstance(s, LlvmSnapshot) for s in pass_dump.parse_llvm(text))


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.sampled_from("/-IR Dump Before After ()':;*\n") | st.characters(), max_size=200))
def test_any_text_gives_snapshots_or_a_pass_dump_error(text):
    _parse_all(text)


def test_no_before_section_is_a_pass_dump_error():
    with pytest.raises(PassDumpError, match="no '// -----// IR Dump Before' sections"):
        pass_dump.parse_mlir("module {\n}\n")


@large
@given(motif=motifs(_FRAGMENTS))
@example(motif=" ")  # after "internal IR Dump After: x", a 100 KB run of spaces: (.+?)\s*$ took 25 s
@example(motif=" Failed ")
@example(motif=" ***(")
def test_large_hostile_text_finishes(motif):
    text = repeated(motif)
    line = text.replace("\n", " ")
    with within():
        _parse_all(text)
        _parse_all(f"// -----// a internal IR Dump After: x{line}y")
        _parse_all(f"// -----// IR Dump After {line}")
        _parse_all(f"; *** IR Dump After P on f{line}")
