"""The layering DESIGN promises, checked on the source: who may import Triton, how long code may grow."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tritonscope"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "capture_hook" not in p.parts)


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
