"""Properties of the MLIR location parser (TTIR, TTGIR `loc(...)`), on generated and hostile text."""

from __future__ import annotations

from hostile import is_subsequence, large, motifs, repeated, within
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tritonscope.parsers import mlir_locations

# --- generated valid modules: the lines found are exactly the ones put in ------------------------------------------

# A location is a tree: ("file", name, line), ("alias", k), ("unknown",), ("named", name, child), ("loc", child),
# ("fused", [children]) or ("callsite", callee, caller).
_NAME_CHARS = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"))
names = st.text(_NAME_CHARS, max_size=12) | st.sampled_from(['loc(x)"', "a.py", "(", ")", "#loc3", "\\", "at"])
files = st.tuples(st.just("file"), names, st.integers(0, 10**6))
leaves = files | st.tuples(st.just("alias"), st.integers(0, 7)) | st.just(("unknown",))


def _forms(children):
    return (
        st.tuples(st.just("named"), names, children)
        | st.tuples(st.just("loc"), children)
        | st.tuples(st.just("fused"), st.lists(children, max_size=4))
        | st.tuples(st.just("callsite"), children, children)
    )


trees = st.recursive(leaves, _forms, max_leaves=12)


def _quoted(name: str) -> str:
    """The name as MLIR prints it (llvm::printEscapedString): a backslash doubled, a quote as `\\22`."""
    return '"' + name.replace("\\", "\\\\").replace('"', "\\22") + '"'


def _render(tree) -> str:
    kind = tree[0]
    if kind == "file":
        return f"{_quoted(tree[1])}:{tree[2]}:{tree[2] % 7}"
    if kind == "alias":
        return f"#loc{tree[1]}"
    if kind == "unknown":
        return "unknown"
    if kind == "named":
        return f"{_quoted(tree[1])}({_render(tree[2])})"
    if kind == "loc":
        return f"loc({_render(tree[1])})"
    if kind == "fused":
        return "fused[" + ", ".join(_render(child) for child in tree[1]) + "]"
    return f"callsite({_render(tree[1])} at {_render(tree[2])})"


def _expected(tree, aliases: dict) -> list:
    """The file:line leaves in order, aliases expanded (a reference resolver, recursive: the trees are small)."""
    kind = tree[0]
    if kind == "file":
        return [(tree[1], tree[2])] if tree[2] > 0 else []
    if kind == "alias":
        return _expected(aliases[tree[1]], aliases)
    if kind == "unknown":
        return []
    children = tree[1] if kind == "fused" else tree[1:] if kind == "callsite" else [tree[-1]]
    return [leaf for child in children for leaf in _expected(child, aliases)]


def _acyclic(alias_trees: list) -> list:
    """Alias k refers only to aliases below k (aliases past the end become `unknown`)."""

    def bounded(tree, k):
        kind = tree[0]
        if kind == "alias":
            return tree if tree[1] < k else ("unknown",)
        if kind == "fused":
            return ("fused", [bounded(child, k) for child in tree[1]])
        if kind in ("named", "loc"):
            return (*tree[:-1], bounded(tree[-1], k))
        if kind == "callsite":
            return ("callsite", bounded(tree[1], k), bounded(tree[2], k))
        return tree

    return [bounded(tree, k) for k, tree in enumerate(alias_trees)]


# Op text before the location: words, SSA values and string literals that hold location look-alikes.
literals = st.sampled_from(['" value loc(x) =: "', '"loc(#loc1)"', '")"', '"("', '"a\\"loc(b)\\""', '"\\\\"'])
code_parts = st.sampled_from(["%0 =", "tt.print", "arith.addf", "%x, %y", ":", "tensor<4xf32>", "{hex = false}"])
codes = st.lists(code_parts | literals, min_size=1, max_size=6).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(alias_trees=st.lists(trees, min_size=8, max_size=8).map(_acyclic), ops=st.lists(st.tuples(codes, trees)))
@example(alias_trees=[("unknown",)] * 8, ops=[("%0 =", ("file", "\\00", 1))])  # CI: `\\00` read as a NUL byte
@example(alias_trees=[("unknown",)] * 8, ops=[("%0 =", ("file", 'caf\u00e9 "x".py', 3))])
def test_parse_finds_exactly_the_lines_put_in(alias_trees, ops):
    aliases = dict(enumerate(alias_trees))
    lines = ["module {"] + [f"  {code} loc({_render(tree)})" for code, tree in ops] + ["}"]
    lines += [f"#loc{k} = loc({_render(tree)})" for k, tree in reversed(aliases.items())]
    expected = {}
    for number, (_, tree) in enumerate(ops, start=2):
        found = tuple(dict.fromkeys(_expected(tree, aliases)))
        if found:
            expected[number] = found
    assert mlir_locations.parse("\n".join(lines)) == expected


@settings(max_examples=300, deadline=None)
@given(code=codes, tree=trees)
def test_an_op_line_splits_into_its_code_and_its_location(code, tree):
    line = f"{code} loc({_render(tree)})"
    assert mlir_locations.last_location(line) == _render(tree)
    assert mlir_locations.without_locations(line) == code  # string literals untouched, even with loc( inside
    assert mlir_locations.last_location(code) is None
    assert mlir_locations.without_locations(code) == code


def test_the_issue_device_print_literal_is_kept():
    line = 'tt.print " value loc(x) =: " {hex = false, isSigned = array<i32: 0>} : %x_2 : tensor<16xf32> loc(#loc5)'
    assert mlir_locations.without_locations(line) == line[: line.rindex(" loc(")]
    assert mlir_locations.last_location(line) == "#loc5"


def test_unknown_and_cyclic_aliases_cost_only_their_lines():
    text = "\n".join(
        [
            "a loc(#loc1)",
            "b loc(#loc2)",
            "c loc(#loc9)",
            "d loc(#loc4)",
            "#loc1 = loc(#loc1)",
            "#loc2 = loc(callsite(#loc3 at #loc1))",
            "#loc3 = loc(fused[#loc2])",
            '#loc4 = loc("k.py":4:1)',
        ]
    )
    assert mlir_locations.parse(text) == {4: (("k.py", 4),)}


# --- deep nesting: no recursion limit ----------------------------------------------------------------------------


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(["loc", "fused", "callsite", "named", "chain", "callsite-chain"]), st.integers(1, 6000))
@example(form="chain", depth=300)  # the issue: RecursionError on alias chains about 300 deep
@example(form="callsite-chain", depth=5000)
def test_deep_nesting_and_long_alias_chains(form, depth):
    leaf = '"k.py":1:0'
    if form == "loc":
        text, expected = "x loc(" + "loc(" * depth + leaf + ")" * (depth + 1), [("k.py", 1)]
    elif form == "fused":
        text, expected = "x loc(" + "fused[" * depth + leaf + "]" * depth + ")", [("k.py", 1)]
    elif form == "named":
        text, expected = "x loc(" + '"n"(' * depth + leaf + ")" * (depth + 1), [("k.py", 1)]
    elif form == "callsite":  # callsite(callsite(... at "k.py":2:0) at "k.py":3:0)
        callers = "".join(f' at "k.py":{n}:0)' for n in range(2, depth + 2))
        text = "x loc(" + "callsite(" * depth + leaf + callers + ")"
        expected = [("k.py", n) for n in range(1, depth + 2)]
    elif form == "chain":
        definitions = [f"#loc{n} = loc(#loc{n + 1})" for n in range(depth)] + [f"#loc{depth} = loc({leaf})"]
        text, expected = "\n".join(["x loc(#loc0)", *definitions]), [("k.py", 1)]
    else:
        definitions = [f'#loc{n} = loc(callsite(#loc{n + 1} at "k.py":{n + 2}:0))' for n in range(depth)]
        text = "\n".join(["x loc(#loc0)", *definitions, f"#loc{depth} = loc({leaf})"])
        expected = [("k.py", 1)] + [("k.py", n) for n in range(depth + 1, 1, -1)]  # the callee comes first
    with within():
        assert mlir_locations.parse(text) == {1: tuple(expected)}


# --- anything at all: only a mapping comes back, fast ------------------------------------------------------------

_FRAGMENTS = ["loc(", "(", ")", '"', "\\", "#loc1", " = ", "fused[", "fused<", "]", ">", "callsite(", " at ", ",", ":"]
_FRAGMENTS += ["1", "99999", " ", "x", "\n", "unknown", "to"]


def _check_result(result: dict) -> None:
    for number, found in result.items():
        assert isinstance(number, int) and number >= 1 and found
        assert all(isinstance(name, str) and isinstance(line, int) and line > 0 for name, line in found)


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.sampled_from('loc()"\\#[]<>,: at1x\n') | st.characters(), max_size=200))
def test_any_text_gives_a_map_and_stripping_only_removes(text):
    _check_result(mlir_locations.parse(text))
    for line in text.splitlines():
        stripped = mlir_locations.without_locations(line)
        assert is_subsequence(stripped, line)
        inside = mlir_locations.last_location(line)
        assert inside is None or f"loc({inside})" in line


@large
@given(motif=motifs(_FRAGMENTS))
@example(motif="loc(")  # the issue: 5.5 s on 24 KB of unclosed loc(
@example(motif='"a":1:0,')
@example(motif="#loc1 = loc(#loc1 ")
def test_large_hostile_text_finishes(motif):
    text = repeated(motif)
    line = text.replace("\n", " ")
    with within():
        _check_result(mlir_locations.parse(text))
        _check_result(mlir_locations.parse(f"x loc(fused[{line}])"))
        assert is_subsequence(mlir_locations.without_locations(line), line)
        mlir_locations.last_location(line)


@settings(max_examples=10, deadline=None)
@given(leaves=st.integers(1, 5000), hubs=st.integers(1, 100), chain=st.integers(1, 100), repeats=st.integers(1, 100))
@example(leaves=4000, hubs=1, chain=1, repeats=7000)  # one alias naming another 7000 times: 1 s before
@example(leaves=5000, hubs=30, chain=300, repeats=1)  # the costliest shape found: about 1.5 s for 150 KB
def test_alias_graphs_built_to_be_costly_finish(leaves, hubs, chain, repeats):
    """Many leaves in one alias, hubs naming it (repeatedly), a chain of aliases fusing every hub."""
    lines = ["x loc(#loca0)", "#loc0 = loc(fused[" + ", ".join(f'"a":{i}:0' for i in range(1, leaves + 1)) + "])"]
    lines += [f"#loch{h} = loc(fused[{', '.join(['#loc0'] * repeats)}])" for h in range(hubs)]
    named = ", ".join(f"#loch{h}" for h in range(hubs))
    lines += [f"#loca{a} = loc(fused[{named}, #loca{a + 1}])" for a in range(chain)] + [f"#loca{chain} = loc(unknown)"]
    with within():
        assert mlir_locations.parse("\n".join(lines)) == {1: tuple(("a", i) for i in range(1, leaves + 1))}


# --- the usual op line, found without the scan ------------------------------------------------------------------------

_LINE_PIECES = ["%0 = op", " ", "loc(", " loc(", "#loc3", ")", "(", '"', '\\"', "\\", "a", ":", "callsite(", " at "]


@settings(max_examples=2000, deadline=None)
@given(line=motifs(_LINE_PIECES, max_size=12))
def test_the_trailing_location_shortcut_agrees_with_the_scan(line):
    """A pass dump's tens of thousands of lines end in one ` loc(#locN)`: their span is found without
    the scan. Where the shortcut answers, it answers what the scan does, whatever the line."""
    alone = mlir_locations._trailing_location(line)
    if alone is not None:
        assert alone == mlir_locations._scanned_spans(line)


def test_the_trailing_location_shortcut_takes_real_op_lines_and_agrees_on_each():
    from conftest import compiled

    c = compiled("sample:matmul", "sm90")
    lines = [line for stage, text in c.stages.items() if stage.value in ("ttir", "ttgir") for line in text.splitlines()]
    taken = [line for line in lines if mlir_locations._trailing_location(line) is not None]
    assert len(taken) > len(lines) / 2  # the shortcut is the usual path
    for line in lines:
        assert mlir_locations._location_spans(line) == mlir_locations._scanned_spans(line), line
