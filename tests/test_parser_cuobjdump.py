"""Properties of the `cuobjdump --dump-resource-usage` parser."""

from __future__ import annotations

import re

import pytest
from hostile import large, motifs, repeated, within
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tritonscope.parsers import cuobjdump
from tritonscope.parsers.errors import ParseError

names = st.from_regex(r"[A-Za-z_][\w$]{0,20}", fullmatch=True)
field_names = st.sampled_from(["REG", "STACK", "SHARED", "LOCAL", "CONSTANT[0]", "CONSTANT[2]", "TEXTURE", "SAMPLER"])
usages = st.dictionaries(names, st.dictionaries(field_names, st.integers(0, 2**40), max_size=8), max_size=4)


def _render(functions: dict) -> str:
    lines = ["", "Resource usage:", ""]
    for name, fields in functions.items():
        lines.append(f" Function {name}:")
        lines.append("  " + " ".join(f"{key}:{value}" for key, value in fields.items()))
    return "\n".join(lines) + "\n"


@settings(max_examples=300)
@given(functions=usages)
def test_reads_back_what_was_written(functions):
    assert cuobjdump.parse_resource_usage(_render(functions)) == functions


@settings(max_examples=300)
@given(functions=usages, kernel=names)
def test_kernel_usage_is_its_fields_or_a_parse_error(functions, kernel):
    text = _render(functions)
    if "REG" in functions.get(kernel, {}):
        assert cuobjdump.kernel_usage(text, kernel) == functions[kernel]
    else:
        with pytest.raises(ParseError, match=re.escape(f"no resource usage for {kernel}:")):
            cuobjdump.kernel_usage(text, kernel)


_FRAGMENTS = ["Function ", "f", ":", "REG", ":26", "A", "[0]", "[", "]", "1", " ", "\n", "CONSTANT"]


@settings(max_examples=500)
@given(text=st.text(st.sampled_from("Function f:REG[0]1 \n") | st.characters(), max_size=200))
@example(text=" Function f:\n REG:" + "9" * 5000)
def test_any_text_gives_functions_or_a_parse_error(text):
    functions = cuobjdump.parse_resource_usage(text)
    assert all(isinstance(v, int) for fields in functions.values() for v in fields.values())
    try:
        cuobjdump.kernel_usage(text, "f")
    except ParseError:
        pass


@large
@given(motif=motifs(_FRAGMENTS))
@example(motif="A")  # a 100 KB run of capitals: _FIELD was retried at each letter (over 30 s)
def test_large_hostile_text_finishes(motif):
    text = repeated(motif)
    with within():
        cuobjdump.parse_resource_usage(" Function f:\n" + text)
        cuobjdump.parse_resource_usage(text)
