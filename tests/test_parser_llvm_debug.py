"""Properties of the LLVM IR debug-location parser (`!dbg` resolved through DILocation metadata)."""

from __future__ import annotations

import os

from hostile import is_subsequence, large, motifs, repeated, within
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tritonscope.parsers import llvm_debug

# --- generated modules: the lines found are exactly the ones put in ----------------------------------------------

paths = st.tuples(st.sampled_from(["k.py", "helpers.py", "/abs/k.py", "a b.py"]), st.sampled_from(["", "/d", "/x y"]))


@st.composite
def modules(draw):
    """(IR text, expected map): files, subprograms and lexical blocks, DILocation chains, instructions."""
    files = draw(st.lists(paths, min_size=1, max_size=3))
    nodes, scope_paths = [], []  # metadata lines; per scope: its file's path
    for name, directory in files:
        nodes.append(f'!DIFile(filename: "{name}", directory: "{directory}")')
    for _ in range(draw(st.integers(1, 4))):
        file = draw(st.integers(0, len(files) - 1))
        nodes.append(f'distinct !DISubprogram(name: "f", scope: !{file}, file: !{file}, line: 3, unit: !99)')
        scope_paths.append((len(nodes) - 1, _path(*files[file])))
    for _ in range(draw(st.integers(0, 3))):  # a block inside a scope: its file is found through `scope:`
        parent, path = draw(st.sampled_from(scope_paths))
        nodes.append(f"distinct !DILexicalBlock(scope: !{parent}, line: 5, column: 2)")
        scope_paths.append((len(nodes) - 1, path))
    locations = {}  # node index -> the lines it resolves to
    for _ in range(draw(st.integers(1, 8))):
        line, column = draw(st.integers(0, 10**6)), draw(st.integers(0, 80))
        scope, path = draw(st.sampled_from(scope_paths))
        found = [(path, line)] if line > 0 else []
        inlined = ""
        if locations and draw(st.booleans()):
            outer = draw(st.sampled_from(sorted(locations)))
            inlined, found = f", inlinedAt: !{outer}", found + list(locations[outer])
        nodes.append(f"!DILocation(line: {line}, column: {column}, scope: !{scope}{inlined})")
        locations[len(nodes) - 1] = tuple(dict.fromkeys(found))
    code, expected = ["define void @k(ptr %0) !dbg !1 {"], {}
    for _ in range(draw(st.integers(0, 12))):
        number = len(code) + 1
        if draw(st.booleans()):
            node = draw(st.sampled_from(sorted(locations)))
            code.append(f"  %{number} = load float, ptr %0, align 4, !dbg !{node}")
            if locations[node]:
                expected[number] = locations[node]
        else:
            code.append(f"  %{number} = fadd float %1, %1")
    code.append("}")
    return "\n".join(code + [f"!{n} = {text}" for n, text in enumerate(nodes)]), expected


def _path(name: str, directory: str) -> str:
    return os.path.join(directory, name) if directory and not os.path.isabs(name) else name


@settings(max_examples=300, deadline=None)
@given(module=modules())
def test_parse_finds_exactly_the_lines_put_in(module):
    text, expected = module
    assert llvm_debug.parse(text) == expected


@settings(max_examples=20, deadline=None)
@given(depth=st.integers(1, 5000))
@example(depth=llvm_debug.MAX_HOPS + 1)
def test_long_inlined_chains_stop_after_max_hops(depth):
    lines = ["x !dbg !10", '!0 = !DIFile(filename: "k.py", directory: "")']
    lines += [f"!{10 + n} = !DILocation(line: {n + 1}, scope: !0, inlinedAt: !{11 + n})" for n in range(depth)]
    with within():
        found = llvm_debug.parse("\n".join(lines))[1]
    assert found == tuple(("k.py", n + 1) for n in range(min(depth, llvm_debug.MAX_HOPS + 1)))


def test_cycles_end():
    text = "\n".join(
        [
            "x !dbg !1",
            '!0 = !DIFile(filename: "k.py", directory: "")',
            "!1 = !DILocation(line: 7, scope: !3, inlinedAt: !2)",
            "!2 = !DILocation(line: 9, scope: !3, inlinedAt: !1)",
            "!3 = !DILexicalBlock(scope: !4)",
            "!4 = !DILexicalBlock(scope: !3, file: !0)",
        ]
    )
    assert llvm_debug.parse(text) == {1: (("k.py", 7), ("k.py", 9))}


@given(
    code=st.sampled_from(["%1 = load float, ptr %0", "ret void", "call void @f(ptr %p, i32 1), !noalias !3"]),
    ref=st.integers(0, 10**9),
)
def test_without_dbg_removes_exactly_the_attachment(code, ref):
    assert llvm_debug.without_dbg(f"{code}, !dbg !{ref}") == code
    assert llvm_debug.without_dbg(code) == code
    assert not llvm_debug.is_debug_noise(code)
    assert llvm_debug.is_debug_noise(f"!{ref} = !DILocation(line: 1, scope: !2)")


# --- anything at all: only a mapping comes back, fast ------------------------------------------------------------

_FRAGMENTS = ["!dbg !1", "!1 = ", "!DILocation(", "!DIFile(", "line: ", "scope: !1", "inlinedAt: !1", "file: !1"]
_FRAGMENTS += ['filename: "', '"', "\\", "(", ")", ",", ":", "1", "99999", "a", "A", " ", "\n", "distinct "]


def _check(result: dict) -> None:
    for number, found in result.items():
        assert isinstance(number, int) and number >= 1 and found
        assert all(isinstance(path, str) and isinstance(line, int) and line > 0 for path, line in found)


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.sampled_from('!dbg=DILocation(line: ,scope)1"\n') | st.characters(), max_size=200))
@example(text='x !dbg !1\n!1 = !DILocation(line: !2, scope: !3)\n!3 = !DIFile(filename: "a", directory: "")')
@example(text="x !dbg !1\n!1 = !DILocation(line: " + "9" * 5000 + ', scope: !3)\n!3 = !DIFile(filename: "a")')
def test_any_text_gives_a_map(text):
    _check(llvm_debug.parse(text))
    for line in text.splitlines():
        assert is_subsequence(llvm_debug.without_dbg(line), line)


@large
@given(motif=motifs(_FRAGMENTS))
@example(motif="a")  # one 100 KB word: _FIELD retried at each of its letters
@example(motif="!1 = !DILocation(a")
def test_large_hostile_text_finishes(motif):
    text = repeated(motif)
    with within():
        _check(llvm_debug.parse(text))
        _check(llvm_debug.parse(f"x !dbg !1\n!1 = !DILocation({text.replace(chr(10), ' ')})"))
        llvm_debug.without_dbg(text)
        llvm_debug.is_debug_noise(text)
