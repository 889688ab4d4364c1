"""Parses `cuobjdump --dump-resource-usage` output.

Resource usage:
 Function add_kernel:
  REG:26 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:576 TEXTURE:0 SURFACE:0 SAMPLER:0
"""

from __future__ import annotations

import re

from .errors import ParseError

_FUNCTION = re.compile(r"^\s*Function\s+(\S+?):\s*$")
_FIELD = re.compile(r"(?<![A-Z])([A-Z]+(?:\[\d+\])?):(\d+)")  # (?<![A-Z]): tried once per word, not per letter
_MAX_DIGITS = 18


def parse_resource_usage(text: str) -> dict[str, dict[str, int]]:
    """Per function: its fields (REG, STACK, SHARED, LOCAL, ...) as integers."""
    functions: dict[str, dict[str, int]] = {}
    current = None
    for line in text.splitlines():
        match = _FUNCTION.match(line)
        if match:
            current = functions.setdefault(match.group(1), {})
            continue
        if current is not None:
            current.update({key: int(value) for key, value in _FIELD.findall(line) if len(value) <= _MAX_DIGITS})
    return functions


def kernel_usage(text: str, kernel: str) -> dict[str, int]:
    functions = parse_resource_usage(text)
    if kernel not in functions or "REG" not in functions[kernel]:
        raise ParseError(f"cuobjdump reported no resource usage for {kernel}:\n{text.strip()}")
    return functions[kernel]
