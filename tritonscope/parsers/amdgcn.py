"""Reads the kernel metadata that the AMDGPU backend writes into its assembly.

The `.amdgpu_metadata` YAML block holds, per kernel, lines such as
`.vgpr_count: 10`, `.sgpr_count: 21`, `.group_segment_fixed_size: 0` (LDS bytes),
`.private_segment_fixed_size: 0` (scratch bytes) and the spill counts; the
assembler comments hold LLVM's own `; Occupancy: 8` (waves per SIMD).
"""

from __future__ import annotations

import re

from .errors import ParseError

# No two runs of \s that can trade characters (`\s*-?\s*` backtracks quadratically on a line of
# spaces), and no \s across lines in the MULTILINE search ([^\S\n] is a space that is not a newline).
_METADATA_FIELD = re.compile(r"^\s*(?:-\s*)?\.(\w+):\s+(\d{1,18})\s*$")
_OCCUPANCY = re.compile(r"^[^\S\n]*;[^\S\n]*Occupancy:[^\S\n]*(\d{1,18})[^\S\n]*$", re.MULTILINE)
_FIELDS = (
    "vgpr_count",
    "agpr_count",
    "sgpr_count",
    "vgpr_spill_count",
    "sgpr_spill_count",
    "group_segment_fixed_size",
    "private_segment_fixed_size",
    "wavefront_size",
)


def kernel_metadata(text: str) -> dict[str, int]:
    """The numeric fields of the metadata block (the first kernel's, as Triton emits one)."""
    start = text.find(".amdgpu_metadata")
    end = text.find(".end_amdgpu_metadata", start)
    if start < 0 or end < 0:
        raise ParseError("the AMDGCN assembly has no .amdgpu_metadata block")
    fields: dict[str, int] = {}
    for line in text[start:end].splitlines():
        match = _METADATA_FIELD.match(line)
        if match and match.group(1) in _FIELDS:
            fields.setdefault(match.group(1), int(match.group(2)))
    if "vgpr_count" not in fields:
        raise ParseError("the AMDGCN metadata block has no .vgpr_count")
    return fields


def llvm_occupancy(text: str) -> int | None:
    """LLVM's own estimate of waves per SIMD, from its `; Occupancy: N` comment."""
    match = _OCCUPANCY.search(text)
    return int(match.group(1)) if match else None
