"""docs/tour.ipynb, run as a learner runs it: every cell executed by a real Jupyter kernel (nbclient,
ipykernel), none may fail, and every output must be the one saved in the notebook, once the parts
that change from run to run are set aside (compile times, Triton's cache notes, where the samples and
the cells' files are, the views' ids made from them). The saved outputs are those of the Triton
release in tests/golden/VERSION; under another the test skips, as tests/test_golden.py does.
Rebuild the notebook after a deliberate change: `python docs/build_tour_notebook.py`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tritonscope.triton_api import version

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "docs" / "tour.ipynb"
_VOLATILE = [
    (re.compile(r"\b\d+\.\d+ s\b"), "N s"),  # a compile's seconds
    (re.compile(r", read from Triton(&#x27;|')s cache \(compiled earlier\)"), ""),
    (re.compile(r"[^\s\"'<>(]*/sample_kernels/"), "sample_kernels/"),  # where the package is installed
    (re.compile(r"[^\s\"'<>(]*/ipykernel_\d+/"), "CELLS/"),  # a cell's file: the kernel's process id
    (re.compile(r"tsv-[0-9a-f]{12}"), "tsv-ID"),  # a view's id: a digest of all of the above
]


def _steady(text: str) -> str:
    for pattern, instead in _VOLATILE:
        text = pattern.sub(instead, text)
    return text


def _outputs(cell) -> list[tuple[str, str]]:
    """A code cell's outputs as (kind, text): each display's text/plain and text/html, each stream."""
    found = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            found.append((output["name"], _steady(output["text"])))
        for kind in ("text/plain", "text/html"):
            if kind in output.get("data", {}):
                found.append((kind, _steady(output["data"][kind])))
    return found


def test_the_tour_notebook_runs_and_shows_what_it_saved(tmp_path):
    nbformat = pytest.importorskip("nbformat", reason="the test extra installs nbformat, nbclient, ipykernel")
    from nbclient import NotebookClient

    expected = (ROOT / "tests" / "golden" / "VERSION").read_text().strip()
    if version.installed() != expected:
        pytest.skip(f"the notebook's outputs are Triton {expected}'s; this is {version.installed()}")
    saved = nbformat.read(str(NOTEBOOK), as_version=4)
    run = nbformat.read(str(NOTEBOOK), as_version=4)
    NotebookClient(
        run, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(ROOT / "docs")}}
    ).execute()
    code = [(old, new) for old, new in zip(saved.cells, run.cells, strict=True) if old.cell_type == "code"]
    assert len(code) >= 15
    for number, (old, new) in enumerate(code):
        errors = [o for o in new.outputs if o["output_type"] == "error"]
        assert not errors, f"cell {number} ({old.source[:60]!r}) failed: {errors[0]['ename']}: {errors[0]['evalue']}"
        assert _outputs(new) == _outputs(old), f"cell {number} ({old.source[:60]!r}) shows other output than it saved"
    assert any("HGMMA" in text for _, new in code for _, text in _outputs(new))  # it goes down to the tensor cores
    # a view is one block: nothing of it printed beside it (rich drew explain's time section into Jupyter, h22a)
    for _, new in code:
        shown = [o for o in new.outputs if o["output_type"] in ("display_data", "execute_result")]
        html_views = [o for o in shown if "text/html" in o.get("data", {})]
        assert all('class="tritonscope"' in o["data"]["text/html"] for o in html_views), new.source[:60]
