"""Properties of the AMDGPU assembly metadata reader (`.amdgpu_metadata`, `; Occupancy:`)."""

from __future__ import annotations

import pytest
from hostile import large, motifs, repeated, within
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tritonscope.parsers import amdgcn
from tritonscope.parsers.errors import ParseError

FIELDS = ["vgpr_count", "agpr_count", "sgpr_count", "vgpr_spill_count", "sgpr_spill_count"]
FIELDS += ["group_segment_fixed_size", "private_segment_fixed_size", "wavefront_size"]
metadata = st.dictionaries(st.sampled_from(FIELDS), st.integers(0, 2**40), min_size=1)
others = st.dictionaries(
    st.sampled_from([".name", ".symbol", ".max_flat_workgroup_size", ".kernarg_segment_size"]), st.integers(0, 99)
)


def _assembly(fields: dict, other: dict, occupancy: int | None) -> str:
    lines = ["\t.text", "add_kernel:", "\ts_endpgm"]
    if occupancy is not None:
        lines.append(f"; Occupancy: {occupancy}")
    lines += ["\t.amdgpu_metadata", "---", "amdhsa.kernels:", "  - .args:"]
    lines += [f"      {key}: {value}" for key, value in other.items()]
    lines += [f"    .{key}:{' ' * (len(key) % 3 + 1)}{value}" for key, value in fields.items()]
    lines += ["amdhsa.version:", "  - 1", "\t.end_amdgpu_metadata"]
    return "\n".join(lines)


@settings(max_examples=300)
@given(fields=metadata, other=others, occupancy=st.none() | st.integers(0, 20))
def test_reads_back_what_was_written(fields, other, occupancy):
    text = _assembly(fields, other, occupancy)
    assert amdgcn.llvm_occupancy(text) == occupancy
    if "vgpr_count" in fields:
        assert amdgcn.kernel_metadata(text) == fields
    else:
        with pytest.raises(ParseError, match="no .vgpr_count"):
            amdgcn.kernel_metadata(text)


_FRAGMENTS = [".amdgpu_metadata", ".end_amdgpu_metadata", ".vgpr_count:", " ", "-", "1", "\n", ";", "Occupancy:", "\t"]


@settings(max_examples=500)
@given(text=st.text(st.sampled_from(".amdgpu_metadatvr_count:-1 ;Occupancy\n") | st.characters(), max_size=200))
@example(text=".amdgpu_metadata\n .vgpr_count: " + "9" * 5000 + "\n.end_amdgpu_metadata\n; Occupancy: " + "9" * 5000)
def test_any_text_gives_fields_or_a_parse_error(text):
    occupancy = amdgcn.llvm_occupancy(text)
    assert occupancy is None or isinstance(occupancy, int)
    try:
        fields = amdgcn.kernel_metadata(text)
    except ParseError:
        return
    assert "vgpr_count" in fields and set(fields) <= set(FIELDS)


@large
@given(motif=motifs(_FRAGMENTS))
@example(motif=" ")  # a 100 KB line of spaces: `\s*-?\s*` backtracked (8 s)
@example(motif="\n")  # 100 KB of newlines: `^\s*` of the MULTILINE search spanned them all (8 s)
def test_large_hostile_text_finishes(motif):
    text = repeated(motif)
    with within():
        for variant in (text, text.replace("\n", " "), text.replace(" ", "\n")):  # as one line, as many lines
            amdgcn.llvm_occupancy(variant)
            try:
                amdgcn.kernel_metadata(".amdgpu_metadata\n" + variant + "\n.end_amdgpu_metadata")
            except ParseError:
                pass
