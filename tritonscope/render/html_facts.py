"""A compile's facts in a page or a notebook's view: the table of them, and the line that compiles it
again (a notebook's kernel from the cells its code comes from, saved as a file)."""

from __future__ import annotations

import html
import re
import shlex
from collections.abc import Iterable

from ..core.model import Compilation
from ..core.source import cells_named


def reproduce(c: Compilation) -> str:
    """The command line that compiles the variant; a notebook cell's kernel (its file is not on the
    disk) from the cells its code comes from (its helpers' too, by the line map) saved as a file."""
    v = c.variant
    line = v.command_line()
    if cells_named(v.file) == v.file:
        return line
    files = {file for stage_map in c.line_map.values() for sources in stage_map.values() for file, _ in sources}
    cells = sorted({cells_named(f) for f in files | {v.file} if cells_named(f) != f}, key=_cell_number)
    named = [cell.removeprefix("Cell ") for cell in cells]
    # the imports are named: saved alone, the cells raise NameError on `tl` (h24b)
    if len(named) == 1:
        what = f"the cell {named[0]} saved as kernel.py, after the imports and the globals it reads"
    else:
        listed = f"{', '.join(named[:-1])} and {named[-1]}"
        what = f"the cells {listed} saved as kernel.py in that order, after the imports and the globals they read"
    what += " (`import triton`, `import triton.language as tl`)"
    return f"{what}: " + line.replace(shlex.quote(v.file), "kernel.py", 1)


def _cell_number(name: str) -> int:
    found = re.search(r"In\[(\d+)\]", name)
    return int(found.group(1)) if found else 0


def facts_table(rows: Iterable[tuple[str, str]]) -> str:
    cells = "".join(f"<tr><td>{html.escape(k)}</td><td><code>{html.escape(v)}</code></td></tr>" for k, v in rows)
    return f'<table class="facts">{cells}</table>'
