"""The kernel an entry compiled, as its capture recorded it: its source (else found through the
location its TTIR names) and its specialization by parameter name."""

from __future__ import annotations

from pathlib import Path

from ..core import fileio
from .entries import CacheEntry, artifact_text


def def_line(record: dict) -> int | None:
    """The `def` line of a recorded compile's kernel (its record's `first_line` is the decorator's), as
    dump and explain name a kernel; None where the record has no line."""
    if not record.get("first_line"):
        return None
    source, first = record.get("source") or "", int(record["first_line"])
    return first + next((i for i, line in enumerate(source.splitlines()) if line.lstrip().startswith("def ")), 0)


def kernel_source(entry: CacheEntry) -> tuple[str, int, int, str]:
    """(file, first line, def line, source) of the kernel: from the capture, else found through the
    location of the kernel in its TTIR. Empty source when neither is there any more."""
    import ast
    import re

    record = entry.specialization or {}
    if record.get("source") and record.get("file"):
        return record["file"], int(record.get("first_line") or 1), def_line(record) or 1, record["source"]
    first_ir = next((k for k in ("ttir", "glir", "ttgir") if k in entry.stages), None)  # Gluon has no TTIR
    ttir = artifact_text(entry.path(first_ir)) if first_ir else ""
    match = re.search(r'^#loc\d* = loc\("((?:\\.|[^"\\])*)":(\d+):\d+\)', ttir, re.MULTILINE)
    if not match or not Path(match.group(1)).is_file():
        return (match.group(1) if match else ""), 1, 1, ""
    file, line = match.group(1), int(match.group(2))
    try:
        text = fileio.read_input_text(file)
        tree = ast.parse(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return file, line, line, ""  # the source changed since: shown without it
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.lineno == line and node.end_lineno:
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            return file, first, line, "".join(text.splitlines(keepends=True)[first - 1 : node.end_lineno])
    return file, line, line, ""


def recorded_specialization(entry: CacheEntry) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(signature, constants, hints) by parameter name, as a capture recorded them; empty without one.

    Triton keys constants and attributes by the parameter's path, "(3,)": mapped to names here.
    """
    record = entry.specialization or {}
    signature = dict(record.get("signature", {}))
    names = list(signature)

    def name_of(key: str) -> str | None:
        index = key.strip("()").split(",")[0].strip()
        return names[int(index)] if index.isdigit() and int(index) < len(names) else None

    constants = {name_of(k): v for k, v in record.get("constants", {}).items() if name_of(k)}
    codes = {"tt.divisibility": "D", "tt.pointer_range": "S"}
    hints = {
        name_of(k): "".join(codes.get(a[0], "") for a in attrs)
        for k, attrs in record.get("attrs", {}).items()
        if attrs and name_of(k)
    }
    return signature, constants, hints
