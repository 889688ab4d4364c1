"""The documents as a map a newcomer can walk: the README short and pointing on, docs/index.md
listing every page, every link landing somewhere, and the file map in docs/architecture.md the
one the modules give (docs/build_file_map.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
sys.path.insert(0, str(DOCS))
import build_file_map  # noqa: E402

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _links(page: Path) -> list[str]:
    """The relative link targets of a page, code blocks and inline code left out."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


def _anchors(page: Path) -> set[str]:
    """GitHub's anchor of each heading: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_the_readme_is_a_short_map_that_points_on():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 80, "the README is the front door: put deep-dives in a page under docs/"
    assert "pip install . && tritonscope dump sample:" in readme
    assert "<!-- ci:test-command -->\n```\npip install " in readme and "python -m pytest" in readme
    assert "(docs/index.md)" in readme


_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def test_the_index_counts_the_commands_the_readme_shows():
    """docs/index.md says how many commands the README's front door shows: its heading's count, and
    the commands in the block under it (issue 55: it said five where the README has six)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    heading = re.search(r"^## (\w+) commands$", readme, flags=re.M)
    assert heading is not None, "the README's commands heading"
    block = readme[heading.end() :].split("```", 2)[1]
    shown = [line for line in block.splitlines() if line.startswith("tritonscope ")]
    assert _NUMBERS[len(shown) - 1] == heading.group(1).lower()
    index = " ".join((DOCS / "index.md").read_text(encoding="utf-8").split())
    assert f"{heading.group(1).lower()} commands" in index


def test_docs_index_lists_every_page():
    listed = {target.split("#")[0] for target in _links(DOCS / "index.md")}
    missing = sorted(page.name for page in PAGES if page.name != "index.md" and page.name not in listed)
    assert not missing, f"docs/index.md does not list {missing}"


def _broken(page: Path) -> list[str]:
    """The page's relative links to a file that is not there, or to a heading its page lacks."""
    broken = []
    for target in _links(page):
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists() or (anchor and where.suffix == ".md" and anchor not in _anchors(where)):
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=lambda p: p.name)
def test_every_relative_link_lands_on_a_file_and_heading(page):
    assert not _broken(page), f"{page.relative_to(ROOT)}: links that land nowhere: {_broken(page)}"


def test_the_link_check_sees_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "a.md").write_text("# A page\n\n### On a cluster: `--cluster`\n")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md#on-a-cluster---cluster) [gone](c.md) `[code](d.md)` [web](https://x.org/e.md)\n\n"
        "```\n[block](f.md)\n```\n[bad](a.md#on-a-cluster-cluster) [self](#a-page)\n"
    )
    assert _links(page) == ["a.md#on-a-cluster---cluster", "c.md", "a.md#on-a-cluster-cluster", "#a-page"]
    assert _broken(page) == ["c.md", "a.md#on-a-cluster-cluster", "#a-page"]


def test_the_file_map_in_architecture_md_is_the_one_the_modules_give():
    run = subprocess.run(
        [sys.executable, str(DOCS / "build_file_map.py"), "--check"], capture_output=True, text=True, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    block = page.split(build_file_map.BEGIN)[1].split(build_file_map.END)[0]
    mapped = re.findall(r"^- `(tritonscope/[^`]+)`: \S", block, flags=re.M)
    on_disk = [p for p in sorted((ROOT / "tritonscope").rglob("*.py")) if p.read_text(encoding="utf-8").strip()]
    assert mapped == [p.relative_to(ROOT).as_posix() for p in on_disk]


def test_the_file_map_reads_each_modules_job_and_says_when_it_is_stale(tmp_path):
    package = tmp_path / "tritonscope"
    (package / "core").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core" / "model.py").write_text('"""The types. More on them\nhere."""\nX = 1\n')
    (package / "run.py").write_text('def run():\n    """Run it: fast. Then stop."""\n')
    block = build_file_map.file_map(package)
    assert block.splitlines()[1:-1] == [
        "- `tritonscope/core/model.py`: The types.",
        "- `tritonscope/run.py`: Run it: fast.",
    ]
    page = f"# Page\n\n{build_file_map.BEGIN}\n- `tritonscope/gone.py`: Gone.\n{build_file_map.END}\ntail\n"
    fresh = build_file_map.rewritten(page, block)
    assert fresh != page and fresh == f"# Page\n\n{block}\ntail\n"
    assert build_file_map.rewritten(fresh, block) == fresh
    (package / "bare.py").write_text("X = 1\n")
    with pytest.raises(SystemExit, match="bare.py: no docstring"):
        build_file_map.file_map(package)
