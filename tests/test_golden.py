"""The terminal views of three samples, whole, against tests/golden/*.txt: a change to a view
shows in review as a change to those files (regenerate them with tests/golden/regenerate.py)."""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"


def _regenerate():
    spec = importlib.util.spec_from_file_location("golden_regenerate", GOLDEN / "regenerate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def drawn() -> dict[str, str]:
    import triton

    made_with = (GOLDEN / "VERSION").read_text().strip()
    if triton.__version__ != made_with:
        pytest.skip(f"the golden views are Triton {made_with}'s; this is {triton.__version__}")
    return _regenerate().views()


def test_the_golden_files_are_the_views_regenerate_draws(drawn):
    assert sorted(drawn) == sorted(p.name for p in GOLDEN.glob("*.txt"))
    assert len(drawn) == 6


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.txt")))
def test_a_view_is_its_golden_file(drawn, name):
    expected = (GOLDEN / name).read_text()
    if drawn[name] != expected:
        diff = "\n".join(
            list(difflib.unified_diff(expected.splitlines(), drawn[name].splitlines(), "golden", "now", lineterm=""))[
                :60
            ]
        )
        pytest.fail(f"{name} differs (if the change is meant: python tests/golden/regenerate.py):\n{diff}")


def test_the_views_hold_nothing_of_this_machine(drawn):
    checkout, place = str(Path(__file__).resolve().parent.parent), str(_regenerate().PLACE)
    for name, text in drawn.items():
        assert checkout not in text and str(Path.home()) not in text and place not in text, name
        assert "in 0.00 s by Triton" in text and max(map(len, text.splitlines())) <= 80, name
