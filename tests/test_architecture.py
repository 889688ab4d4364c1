"""The layering DESIGN promises, checked on the source: who may import what (the table in
docs/architecture.md), that renderers load neither Triton nor torch, how long code may grow."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tritonscope"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "capture_hook" not in p.parts)
EVERY_MODULE = sorted(PACKAGE.rglob("*.py"))
GUARDED = ("triton", "torch")  # third-party packages the table names; others are not checked


def allowed_imports() -> dict[str, set[str]]:
    """The table under "## Packages" in docs/architecture.md: unit -> what it may import.
    A unit is `core/` (a package) or `isolate.py` (a module); the names are backticked."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Packages", 1)[1].split("\n## ", 1)[0]
    table = {}
    for row in section.splitlines():
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            table[cells[0].strip("`")] = set(re.findall(r"`([^`]+)`", cells[2]))
    return table


def _unit(module: str) -> str:
    """tritonscope.core.model -> core/; tritonscope.isolate -> isolate.py; tritonscope -> ''."""
    parts = module.split(".")[1:]
    if not parts:
        return ""
    return f"{parts[0]}/" if (PACKAGE / parts[0]).is_dir() else f"{parts[0]}.py"


def _dotted(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def every_import(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in a file, wherever it sits: top level, in a
    function, under TYPE_CHECKING; `from . import x` counts as the module x."""
    dotted = _dotted(path, root).split(".")
    package = dotted if path.name == "__init__.py" else dotted[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            found += [(node.lineno, _module_of(base, alias.name, root)) for alias in node.names]
    return found


def _module_of(base: str, name: str, root: Path) -> str:
    """`from base import name`: the module base.name where that is a module on disk, else base."""
    where = root.joinpath(*base.split("."), name)
    return f"{base}.{name}" if where.is_dir() or where.with_suffix(".py").is_file() else base


def _permits(allowed: set[str], module: str) -> bool:
    """Whether an import of `module` (absolute) is one the unit may make."""
    top = module.split(".")[0]
    if top in GUARDED:
        return top in allowed
    if top != "tritonscope":
        return True
    unit = _unit(module)
    if unit == "":
        return True  # the package itself: its version
    within = "/".join(module.split(".")[1:3])  # core/errors for tritonscope.core.errors(.x)
    return unit in allowed or within in allowed or within.split("/")[0] + ".py" in allowed


@pytest.mark.parametrize("path", EVERY_MODULE, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_import_keeps_to_the_table_in_architecture_md(path):
    table = allowed_imports()
    unit = _unit(_dotted(path))
    if unit == "":
        return  # tritonscope/__init__.py: the version
    assert unit in table, f"{unit} has no row in docs/architecture.md's package table"
    allowed = table[unit] | {unit}
    broken = [f"line {n}: {m}" for n, m in every_import(path) if not _permits(allowed, m)]
    assert not broken, f"{path.relative_to(PACKAGE)} ({unit}) may import only {sorted(table[unit])}: {broken}"


def test_the_import_check_sees_every_kind_of_import(tmp_path):
    (tmp_path / "tritonscope" / "render").mkdir(parents=True)
    probe = tmp_path / "tritonscope" / "render" / "probe.py"
    (probe.parent / "json.py").write_text("")
    probe.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..app import sweep\n"
        "def f():\n    from ..triton_api.compiler import compile_variant\n    import torch\n"
        "from . import json\n"
    )
    imports = [m for _, m in sorted(every_import(probe, tmp_path))]
    assert imports == [
        "typing",
        "tritonscope.app",
        "tritonscope.triton_api.compiler",
        "torch",
        "tritonscope.render.json",
    ]
    allowed = allowed_imports()["render/"] | {"render/"}
    assert [m for m in imports if not _permits(allowed, m)] == imports[1:4]


_BLOCKED = """
import importlib.abc, pkgutil, sys

class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("triton", "torch"):
            raise ImportError(f"blocked: {name}")
        return None

sys.meta_path.insert(0, Blocked())
import tritonscope.render
for module in pkgutil.walk_packages(tritonscope.render.__path__, "tritonscope.render."):
    __import__(module.name)
    print(module.name)
"""


def test_every_renderer_imports_with_triton_and_torch_blocked():
    done = subprocess.run([sys.executable, "-c", _BLOCKED], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    imported = set(done.stdout.split())
    on_disk = {_dotted(p) for p in (PACKAGE / "render").rglob("*.py") if p.name != "__init__.py"}
    assert on_disk <= imported and "tritonscope.render.registry" in imported


def _imports(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_triton_api_imports_triton(path):
    if path.relative_to(PACKAGE).parts[0] == "triton_api":
        return
    tritons = {name for name in _imports(ast.parse(path.read_text())) if name.split(".")[0] == "triton"}
    assert not tritons, f"{path.relative_to(PACKAGE)} imports {sorted(tritons)}: go through tritonscope/triton_api/"


def test_the_check_finds_a_triton_import():
    assert _imports(ast.parse("import triton.language as tl\nfrom triton.compiler import ASTSource")) == {
        "triton.language",
        "triton.compiler",
    }


def _function_lengths():
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body[1:] if ast.get_docstring(node) else node.body
                yield path.relative_to(PACKAGE), node.name, body[-1].end_lineno - body[0].lineno + 1


def test_no_function_body_is_longer_than_50_lines():
    long = [f"{path}:{name} ({n} lines)" for path, name, n in _function_lengths() if n > 50]
    assert not long, long


def test_command_bodies_only_parse_call_and_emit():
    long = [
        f"{path}:{name} ({n} lines)"
        for path, name, n in _function_lengths()
        if path.parts[:2] == ("cli", "commands") and not name.startswith("_") and n > 25
    ]
    assert not long, long


# A kernel source is classified once, by core/source.py's parser; a target is looked up by name only in
# core/ (a Variant's `target_info`, `targets.named` for a name read back) and resolved from a --target
# only where a request is prepared (app/prepare.py) or a command takes its own (cli/argtypes.py).
SOURCE_PARSER = "core/source.py"
TARGET_RESOLVERS = {"app/prepare.py", "cli/argtypes.py"}
_CLASSIFIERS = {"is_reference", "is_module_reference", "is_capture", "resolve_path", "SAMPLE_PREFIX"}
_STRING_TESTS = {"startswith", "removeprefix", "partition", "rpartition", "split", "find", "index"}


def _is_sample_text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("sample:")


def source_classifications(tree: ast.AST) -> list[int]:
    """Lines that classify a kernel source by its text or the disk: a classifier named, `sample:` tested,
    or `Path(x.file).is_dir()` (a request's FILE taken for a capture folder)."""
    lines = []
    for node in ast.walk(tree):
        named = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if named in _CLASSIFIERS or (isinstance(node, ast.FunctionDef) and node.name in _CLASSIFIERS):
            lines.append(node.lineno)
        elif isinstance(node, ast.Compare) and any(map(_is_sample_text, [node.left, *node.comparators])):
            lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _STRING_TESTS and any(map(_is_sample_text, node.args)):
                lines.append(node.lineno)
            elif node.func.attr in ("is_dir", "exists", "is_file") and _is_path_of_file(node.func.value):
                lines.append(node.lineno)
    return lines


def _is_path_of_file(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "Path"
        and any(isinstance(a, ast.Attribute) and a.attr == "file" for a in node.args)
    )


def target_lookups(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) of every look-up of the targets table by name, and every import of `resolve`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _names_targets(node.value):
            found.append((node.lineno, "TARGETS[...]"))
        elif isinstance(node, ast.Attribute) and node.attr == "get" and _names_targets(node.value):
            found.append((node.lineno, "TARGETS.get"))
        elif isinstance(node, ast.Compare) and any(map(_names_targets, node.comparators)):
            found.append((node.lineno, "in TARGETS"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").endswith("targets"):
            found += [(node.lineno, "resolve") for alias in node.names if alias.name == "resolve"]
        elif isinstance(node, ast.Attribute) and node.attr == "resolve" and _names_targets(node.value, "targets"):
            found.append((node.lineno, "resolve"))
    return found


def _names_targets(node: ast.AST, name: str = "TARGETS") -> bool:
    return (isinstance(node, ast.Name) and node.id == name) or (isinstance(node, ast.Attribute) and node.attr == name)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_kernel_sources_are_classified_only_by_the_parser(path):
    if str(path.relative_to(PACKAGE)) == SOURCE_PARSER:
        return
    lines = source_classifications(ast.parse(path.read_text()))
    assert not lines, f"{path.relative_to(PACKAGE)} classifies a kernel source at lines {lines}: use core/source.py"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_targets_are_looked_up_only_in_core(path):
    where = str(path.relative_to(PACKAGE))
    if where.startswith("core/"):
        return
    found = target_lookups(ast.parse(path.read_text()))
    if where in TARGET_RESOLVERS:
        found = [(line, what) for line, what in found if what != "resolve"]
    assert not found, f"{where} looks targets up by name: {found}; take Variant.target_info or a resolved Target"


def test_the_source_and_target_checks_find_what_they_forbid():
    probe = ast.parse(
        "from ..core.targets import TARGETS, resolve\n"
        "a = given.startswith('sample:')\n"
        "b = Path(request.file).is_dir()\n"
        "c = cache.is_reference(x)\n"
        "d = TARGETS[v.target]\n"
        "e = targets.TARGETS.get(name)\n"
        "f = name in TARGETS\n"
        "g = targets.resolve('auto')\n"
        "h = [t.name for t in TARGETS.values()]\n"
        "i = f'sample:{name}'\n"
    )
    assert source_classifications(probe) == [2, 3, 4]
    assert sorted(target_lookups(probe)) == [
        (1, "resolve"),
        (5, "TARGETS[...]"),
        (6, "TARGETS.get"),
        (7, "in TARGETS"),
        (8, "resolve"),
    ]
