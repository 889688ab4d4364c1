"""Properties of the TTGIR layout text helpers (layouts.parse, tensor_type, aliases_of, parse_shape)."""

from __future__ import annotations

import pytest
from hostile import large, motifs, repeated, within
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tritonscope.analysis import layouts
from tritonscope.core.errors import UsageError

# --- generated layouts: what is read is what was written --------------------------------------------------------

keys = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,10}", fullmatch=True)
plain_values = st.lists(st.integers(-(10**6), 10**6), max_size=5) | st.integers(0, 10**6) | st.sampled_from(["false"])


def _layouts(children):
    fields = st.dictionaries(keys, plain_values | children, max_size=5)
    return st.tuples(st.sampled_from(layouts.SUPPORTED), fields, st.booleans())


# A generated layout: (kind, {key: value}, whether its ints carry `: i32`); a value may be a layout itself.
trees = st.recursive(_layouts(st.nothing()), _layouts, max_leaves=8)


def _render(tree) -> str:
    kind, fields, typed = tree
    return f"#ttg.{kind}<{{" + ", ".join(f"{key} = {_value_text(value, typed)}" for key, value in fields.items()) + "}>"


def _value_text(value, typed: bool) -> str:
    if isinstance(value, tuple):
        return _render(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(str, value)) + "]"
    return f"{value} : i32" if typed and isinstance(value, int) else str(value)


def _shape(layout):
    """A parsed layout as plain data, to compare with a generated tree."""
    if isinstance(layout, layouts.Layout):
        return (layout.kind, {key: _shape(value) for key, value in layout.fields.items()}, layout.text)
    return layout


def _expected(tree, text=None):
    kind, fields, _ = tree
    return (
        kind,
        {key: _expected(v) if isinstance(v, tuple) else v for key, v in fields.items()},
        text or _render(tree),
    )


@settings(max_examples=300, deadline=None)
@given(tree=trees, padding=st.sampled_from(["", " ", "\n  "]))
def test_parse_reads_back_a_generated_layout(tree, padding):
    assert _shape(layouts.parse(padding + _render(tree) + padding)) == _expected(tree)


@settings(max_examples=200, deadline=None)
@given(parent=trees, kind=st.sampled_from(["slice", "dot_op"]), key=keys)
def test_parse_resolves_aliases_to_their_definitions(parent, kind, key):
    aliases = {"#parent": _render(parent), "#child": f"#ttg.{kind}<{{{key} = 1, parent = #parent}}>"}
    child = layouts.parse("#child", aliases)
    assert child.text == aliases["#child"] and child.kind == kind
    assert _shape(child.fields["parent"]) == _expected(parent)
    assert layouts.aliases_of("\n".join(f"{name} = {text}" for name, text in aliases.items()) + "\nmodule {") == aliases


def _nested(depth: int) -> str:
    text = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"
    for _ in range(depth):
        text = f"#ttg.slice<{{dim = 0, parent = {text}}}>"
    return text


@settings(max_examples=30, deadline=None)
@given(depth=st.integers(0, 4000), through_aliases=st.booleans())
@example(depth=500, through_aliases=False)  # the issue: RecursionError on about 500 nested slices
@example(depth=layouts.MAX_DEPTH - 1, through_aliases=True)
@example(depth=layouts.MAX_DEPTH, through_aliases=True)
def test_deep_nesting_reads_up_to_the_limit_and_is_refused_past_it(depth, through_aliases):
    if through_aliases:
        aliases = {"#a0": _nested(0)} | {
            f"#a{n}": f"#ttg.slice<{{dim = 0, parent = #a{n - 1}}}>" for n in range(1, depth + 1)
        }
        text = f"#a{depth}"
    else:
        aliases, text = {}, _nested(depth)
    with within():
        if depth < layouts.MAX_DEPTH:
            layout = layouts.parse(text, aliases)
            for _ in range(depth):
                assert layout.kind == "slice"
                layout = layout.fields["parent"]
            assert layout.kind == "blocked" and layout.fields["order"] == [0]
        else:
            with pytest.raises(UsageError, match="nested deeper"):
                layouts.parse(text, aliases)


def test_cyclic_aliases_are_refused():
    aliases = {"#a": "#ttg.slice<{dim = 0, parent = #b}>", "#b": "#ttg.dot_op<{opIdx = 0, parent = #a}>"}
    with pytest.raises(UsageError, match="refers to itself"):
        layouts.parse("#a", aliases)


# --- anything at all: a Layout or a UsageError, fast --------------------------------------------------------------

_FRAGMENTS = [
    "#ttg.slice<{",
    "#ttg.blocked<{",
    "#ttg.nope<{",
    "}>",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    ",",
    " = ",
    "=",
    "#a",
]
_FRAGMENTS += ["dim", "parent", "1", "-", ":", " ", "\n", "#"]
_ALIASES = {"#a": "#ttg.slice<{dim = 0, parent = #a}>", "#b": "#ttg.blocked<{order = [0]}>"}


def _parse_or_usage_error(text: str, aliases) -> None:
    try:
        layout = layouts.parse(text, aliases)
    except UsageError:
        return
    assert isinstance(layout, layouts.Layout) and layout.kind in layouts.SUPPORTED


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.sampled_from("#ttg.slice<{}>[],= 1a:") | st.characters(), max_size=120), wrap=st.booleans())
@example(text="order = [1, x]", wrap=True)  # int() of a list item raised ValueError
@example(text="order = [" + "9" * 5000 + "]", wrap=True)
def test_parse_gives_a_layout_or_a_usage_error(text, wrap):
    _parse_or_usage_error("#ttg.blocked<{" + text + "}>" if wrap else text, _ALIASES)


@large
@given(motif=motifs(_FRAGMENTS), wrap=st.booleans())
@example(motif="#ttg.slice<{parent = ", wrap=True)
@example(motif="[", wrap=True)
@example(motif="a = #b, ", wrap=True)
def test_parse_of_large_hostile_text_finishes(motif, wrap):
    text = repeated(motif)
    with within():
        _parse_or_usage_error("#ttg.blocked<{" + text + "}>" if wrap else text, _ALIASES)
        layouts.aliases_of(text)


# --- tensor_type: the last tensor type with a layout on a line ----------------------------------------------------

dims = st.lists(st.integers(1, 4096), min_size=1, max_size=3)
elements = st.sampled_from(["f32", "f16", "i1", "!tt.ptr<f16>", "!tt.ptr<f32, 1>", "bf16"])
encodings = st.sampled_from(["#blocked", "#mma1", "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>"]) | trees.map(
    _render
)
tensors = st.tuples(dims, elements, encodings)
noise = st.sampled_from(
    ["%x = tt.load %p", ":", "->", "(", ")", "tensor<64xf32>", "!tt.ptr<f32>", "{axis = 0 : i32}", 'loc("a<b>.py":3:1)']
) | st.sampled_from(['"tensor<8xf32, #fake>"', "loc(#loc3)", "array<i32: 1>", ","])


def _tensor_text(shape: list[int], element: str, encoding: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}, {encoding}>"


@settings(max_examples=400, deadline=None)
@given(parts=st.lists(tensors | noise, max_size=8))
def test_tensor_type_is_the_last_tensor_with_a_layout_put_in(parts):
    line = " ".join(_tensor_text(*part) if isinstance(part, tuple) else part for part in parts)
    typed = [p for p in parts if isinstance(p, tuple)]
    expected = (tuple(typed[-1][0]), typed[-1][2]) if typed else None
    assert layouts.tensor_type(line) == expected


_TYPE_FRAGMENTS = ["tensor<", "1", "x", "f32", "<", ">", ",", " ", "#a", "#ttg.b<{", "}>", "{", "}", "->", '"', "\\"]


def _check_type(found) -> None:
    if found is not None:
        shape, layout = found
        assert shape and all(isinstance(d, int) and d >= 0 for d in shape) and layout.startswith("#")


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.sampled_from('tensor<>x1f, #{}"-') | st.characters(), max_size=120))
def test_tensor_type_of_any_text_is_none_or_a_shape_and_layout(text):
    _check_type(layouts.tensor_type(text))


@large
@given(motif=motifs(_TYPE_FRAGMENTS))
@example(motif="tensor<1x")  # the issue: 20 s on 6 KB
@example(motif="tensor<1x<")
@example(motif="tensor<1xf32, #ttg.b<{")
def test_tensor_type_of_large_hostile_text_finishes(motif):
    with within():
        _check_type(layouts.tensor_type(repeated(motif)))


# --- parse_shape ---------------------------------------------------------------------------------------------------


@given(shape=st.lists(st.integers(0, 20).map(lambda bits: 1 << bits), min_size=1, max_size=4), upper=st.booleans())
def test_parse_shape_reads_back_powers_of_two(shape, upper):
    text = ("X" if upper else "x").join(map(str, shape))
    assert layouts.parse_shape(text) == tuple(shape)


@settings(max_examples=300)
@given(text=st.text(st.sampled_from("0123456789xX-+ ") | st.characters(), max_size=40))
def test_parse_shape_gives_a_shape_or_a_usage_error(text):
    try:
        shape = layouts.parse_shape(text)
    except UsageError:
        return
    assert all(d > 0 and d & (d - 1) == 0 for d in shape)
