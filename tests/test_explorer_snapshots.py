"""Screenshots of the explorer at 80x24 and 160x48 (pytest-textual-snapshot), kept in
tests/__snapshots__/ and reviewed once by eye; `pytest --snapshot-update` makes them again after a
deliberate change. What the panes hold comes from Triton, so they are compared under the release
of tests/golden/VERSION only, as the golden views are."""

from __future__ import annotations

from pathlib import Path

import pytest

from tritonscope import explorer
from tritonscope.core.model import VariantRequest
from tritonscope.explorer.app import ExplorerApp
from tritonscope.explorer.compiles import Compiles
from tritonscope.triton_api.version import installed

GOLDEN = (Path(__file__).parent / "golden" / "VERSION").read_text().strip()
pytestmark = pytest.mark.skipif(installed() != GOLDEN, reason=f"snapshots are of Triton {GOLDEN}")


@pytest.fixture(scope="module")
def warm():
    """The module's explorers share one set of warm workers (Triton started once)."""
    compiles = Compiles()
    yield compiles
    compiles.close()


@pytest.fixture
def explore(warm):
    """An explorer on a request, as `tritonscope explore` opens it (its first compile done)."""

    def open_app(file: str, **flags) -> ExplorerApp:
        request = VariantRequest(file=file, target="sm90", **flags)
        opening = explorer.start(request, warm)
        return ExplorerApp(warm, request, opening.first(), watch=False)

    yield open_app
    warm.cancel()


async def settled(pilot) -> None:
    """Every follow-up of the first compile done (its SASS, its registers live per line): the screen
    no longer changes by itself."""
    while pilot.app.compiling:
        await pilot.pause(0.1)
    await pilot.pause()  # the last follow-up's redraw painted before the keys


def test_vector_add_at_80x24(snap_compare, explore):
    # line 23's SASS is below the first screenful wherever the SASS pane stood before the keys (on a
    # loaded machine it may not have followed line 8 yet), so the pane scrolls to it in every run
    keys = ["colon", "2", "3", "enter"]
    assert snap_compare(explore("sample:vector_add"), terminal_size=(80, 24), press=keys, run_before=settled)


def test_matmul_at_160x48_on_the_dot(snap_compare, explore):
    keys = ["colon", "3", "5", "enter"]
    assert snap_compare(explore("sample:matmul"), terminal_size=(160, 48), press=keys, run_before=settled)


def test_matmul_at_160x48_light_with_three_panes(snap_compare, explore):
    keys = ["t", "r", "plus", "plus", "colon", "3", "3", "enter"]  # the panel's columns first: 3 panes fit
    assert snap_compare(explore("sample:matmul"), terminal_size=(160, 48), press=keys, run_before=settled)
