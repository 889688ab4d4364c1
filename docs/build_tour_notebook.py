"""Builds docs/tour.ipynb: the first chapters of docs/tour.md (from `vector_add` down to HGMMA) as a
notebook, its outputs real, made by running it with a real Jupyter kernel (nbclient).

The steps are tour.md's own (build_tour.py's STEPS): each command becomes the Python API call the
`%tritonscope` magic would make of it (the magic's own parser reads it), after a first section with a
kernel defined in a cell, as a learner defines one. Run it again whenever Triton or a view changes:
`python docs/build_tour_notebook.py`. tests/test_tour_notebook.py runs the notebook and holds every
output to the saved one, with the volatile parts (times, paths, the cell's temporary file) set aside.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import nbformat
from build_tour import STEPS
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
LAST = "dump sample:matmul --target sm80 --line 35 --stage sass"  # tour.md's HMMA: the notebook ends there
NOT_IN_NOTEBOOK = ("--annotate",)  # the notebook's view links the lines instead

INTRO = """# A guided tour: from Python to SASS, in a notebook

The first chapters of [tour.md](tour.md), from `vector_add` down to HGMMA, with the Python API:
`ts.dump`, `ts.explain`, `ts.diff` ... return results with plain attributes (`.stages["ptx"]`,
`.resources.registers`, `.line(20)`) that Jupyter shows as the linked view of `tritonscope report`:
click a Python line to light up what it became in every stage. No GPU is needed; every compile runs
in a child process. Re-run a cell (or trust the notebook) to make its saved view clickable."""

OWN_KERNEL = """## A kernel of your own, defined in a cell

As the study notes do: a kernel defined inline. Its source comes from the cell, the helper and the
constant from the cells above it, and the line numbers are the cell's."""

CELLS_SETUP = """import triton
import triton.language as tl
import tritonscope as ts

TWO = tl.constexpr(2)"""

CELLS_HELPER = """@triton.jit
def doubled(x):
    return x * TWO"""

CELLS_KERNEL = """@triton.jit
def simple_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, doubled(x), mask=mask)"""

CELLS_CALLS = [
    'simple = ts.dump(simple_kernel, BLOCK_SIZE=1024, args={"x_ptr": "*fp16", "out_ptr": "*fp16"}, target="sm90",\n'
    '                 stages=["ttgir", "ptx", "sass"])\nsimple',
    'simple.resources.registers, simple.line(4)["ptx"]',
    "%load_ext tritonscope\n%tritonscope explain simple_kernel -c BLOCK_SIZE=1024 -a n=4099 -t sm90 --no-what-if",
]


def api_call(command: str) -> str:
    """The Python API call a tour command stands for, as the `%tritonscope` magic reads the command."""
    from tritonscope.api.magic import parsed

    words = " ".join(word for word in command.split() if word not in NOT_IN_NOTEBOOK)
    function, keywords, kernel = parsed(words, {})
    constexprs = keywords.pop("constexprs", {})
    shown = [repr(kernel)]
    shown += [f"{name}={_literal(value)}" for name, value in constexprs.items()]
    shown += [f"{name}={_python(name, value)}" for name, value in keywords.items()]
    return f"ts.{function.__name__}({', '.join(shown)})"


def _python(name: str, value: Any) -> str:
    if name in ("args",):
        return "{" + ", ".join(f"{k!r}: {_literal(v)}" for k, v in value.items()) + "}"
    if name == "vary":
        return "{" + ", ".join(f"{k!r}: [{', '.join(map(_literal, vs))}]" for k, vs in value.items()) + "}"
    return repr(value)


def _literal(text: Any) -> str:
    """A value typed on the command line as the Python literal that means the same."""
    from tritonscope.core.forms import typed

    value = typed(text) if isinstance(text, str) else text
    return repr(value) if isinstance(value, (bool, int, float)) or value is None else repr(str(text))


def cells() -> list[Any]:
    made = [nbformat.v4.new_markdown_cell(INTRO), nbformat.v4.new_markdown_cell(OWN_KERNEL)]
    made += [nbformat.v4.new_code_cell(code) for code in (CELLS_SETUP, CELLS_HELPER, CELLS_KERNEL, *CELLS_CALLS)]
    made.append(nbformat.v4.new_markdown_cell("## The tour's steps, on the bundled samples"))
    for title, prose, command, _ in STEPS:
        if title or prose:
            made.append(nbformat.v4.new_markdown_cell(f"### {title}\n\n{prose}" if title else prose))
        made.append(nbformat.v4.new_code_cell(api_call(command)))
        if command == LAST:
            break
    return made


def build(out: Path) -> None:
    notebook = nbformat.v4.new_notebook(cells=cells())
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    client = NotebookClient(notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(HERE)}})
    client.execute()
    for number, cell in enumerate(notebook.cells):
        cell["id"] = f"tour-{number}"  # nbformat's are random: a rebuild would change every cell
    nbformat.write(notebook, str(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "tour.ipynb")
    out = parser.parse_args().out
    build(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
