"""Writes the file map in docs/architecture.md: every module of tritonscope, one line each, with its job.

The job is the first sentence of the module's docstring (of its first documented function or
class where the module has none, as the command modules do). Run it again after adding, moving
or removing a module: `python docs/build_file_map.py`. `--check` writes nothing and exits 1 when
the map in the page is not the one the modules give (tests/test_docs.py runs it).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

from tritonscope.core.fileio import write_text_atomically

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PAGE = HERE / "architecture.md"
BEGIN = "<!-- file-map: made by docs/build_file_map.py, do not edit by hand -->"
END = "<!-- /file-map -->"
LONGEST = 110  # characters of a job before it is cut


def job(path: Path, root: Path = ROOT) -> str | None:
    """The first sentence of the module's docstring, or of its first documented definition; None for
    an empty file (a package's bare __init__.py)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    documented = [tree] + [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    text = next((ast.get_docstring(node) for node in documented if ast.get_docstring(node)), None)
    if text is None:
        if tree.body:
            raise SystemExit(f"{path.relative_to(root)}: no docstring says what it is for; write one")
        return None
    paragraph = " ".join(text.strip().split("\n\n")[0].split())
    sentence = re.split(r"(?<=[.!?])\s+(?=[A-Z`(])", paragraph)[0]
    return sentence if len(sentence) <= LONGEST else _cut(sentence)


def _cut(sentence: str) -> str:
    """A long sentence cut after its last clause that ends before LONGEST characters (a map line is
    read at a glance; the module's docstring has the rest)."""
    ends = [m.start() for m in re.finditer(r"[,;:] | \(| -- ", sentence[:LONGEST]) if m.start() > LONGEST // 3]
    return (sentence[: ends[-1]] if ends else sentence[:LONGEST].rsplit(" ", 1)[0]) + " …"


def file_map(package: Path = ROOT / "tritonscope") -> str:
    """The block between the markers: one list item per module, in path order."""
    lines = []
    for path in sorted(package.rglob("*.py")):
        what = job(path, package.parent)
        if what is not None:
            lines.append(f"- `{path.relative_to(package.parent).as_posix()}`: {what}")
    return "\n".join([BEGIN, *lines, END])


def rewritten(page: str, block: str) -> str:
    """The page with its block between the markers replaced."""
    if page.count(BEGIN) != 1 or page.count(END) != 1:
        raise SystemExit(f"{PAGE.relative_to(ROOT)} must hold the markers {BEGIN!r} and {END!r} once each")
    before, rest = page.split(BEGIN)
    return before + block + rest.split(END)[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the map is stale")
    check = parser.parse_args().check
    page = PAGE.read_text(encoding="utf-8")
    fresh = rewritten(page, file_map())
    if check:
        if fresh != page:
            sys.exit(f"the file map in {PAGE.relative_to(ROOT)} is stale: run python docs/build_file_map.py")
        return
    write_text_atomically(PAGE, fresh)
    print(f"wrote the file map in {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
