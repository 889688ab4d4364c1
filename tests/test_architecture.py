"""The layering DESIGN promises, checked on the source: who may import what (the table in
docs/architecture.md), that renderers load neither Triton nor torch, how long code may grow
(functions, classes, modules)."""

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
    function, under TYPE_CHECKING; `from . import x` (or `from tritonscope import x`) counts as
    the module x."""
    dotted = _dotted(path, root).split(".")
    package = dotted if path.name == "__init__.py" else dotted[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module.split(".")[0] == "tritonscope":
            found += [(node.lineno, _module_of(node.module, alias.name, root)) for alias in node.names]
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


def test_the_parsers_import_nothing_of_tritonscope():
    """The bottom layer: a parser's failure is its own ParseError (parsers/errors.py), made
    tritonscope's error where analysis/ calls it, never an import of core/errors."""
    assert allowed_imports()["parsers/"] == set()


# Imports the table allows up a layer: none (parsers/ have their own error since issue 50). None may
# be added.
UP_A_LAYER: set[tuple[str, str]] = set()


def _row_of(name: str) -> str | None:
    """The row a name of the last column stands in: core/errors -> core/; None for triton, torch."""
    if name in GUARDED:
        return None
    return name.split("/")[0] + "/" if "/" in name else name


def upward_imports(table: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(row, what it may import) wherever that is not a row above it: the rows go from the ground up."""
    rows = list(table)
    return [
        (unit, name)
        for index, unit in enumerate(rows)
        for name in sorted(table[unit])
        if _row_of(name) is not None and _row_of(name) not in rows[:index]
    ]


def test_the_table_goes_from_the_ground_up():
    """Each package may import only the rows above its own: read top-down, no import runs up a layer
    (and so no two packages import each other)."""
    upward = [(unit, _row_of(name)) for unit, name in upward_imports(allowed_imports())]
    assert set(upward) <= UP_A_LAYER, f"rows that may import a row below them: {sorted(set(upward) - UP_A_LAYER)}"


def test_the_layer_check_finds_an_import_up_a_layer():
    table = {"core/": {"triton", "app/calls"}, "app/": {"core/errors", "render/"}, "render/": {"core/", "app/explore"}}
    assert upward_imports(table) == [("core/", "app/calls"), ("app/", "render/")]


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


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """tritonscope's modules -> the modules of tritonscope each one imports, anywhere in it (as
    every_import sees them): `from .x import name` is an edge to x, `from . import x` to the module
    x where x is one, `import a.b` to a.b. A package's __init__ is the module of its own name."""
    package = root / "tritonscope"
    modules = {_dotted(path, root): path for path in package.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        graph[name] = {_known(imported, modules) for _, imported in every_import(path, root) if imported}
        graph[name] -= {None, name}
    return graph


def _known(module: str, modules: dict) -> str | None:
    """The longest prefix of `module` that is one of tritonscope's modules (None outside it): an
    import of tritonscope.isolate._serve is one of tritonscope.isolate."""
    parts = module.split(".")
    while parts and ".".join(parts) not in modules:
        parts.pop()
    return ".".join(parts) or None


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle of imports, of any length: the strongly connected groups of more than one
    module (Tarjan's algorithm), each sorted, listed in order."""
    order, low, stack, groups = {}, {}, [], []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for imported in sorted(graph.get(module, ())):
            if imported not in order:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], order[imported])
        if low[module] == order[module]:
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return sorted(groups)


# Circles on main when this check came (issue 37), each being taken apart by the branch that
# rebuilds its modules. An entry that is gone must be deleted here; none may be added.
def test_no_modules_import_each_other_in_a_circle():
    cycles = sorted(" <-> ".join(group) for group in import_cycles(import_graph()))
    assert not cycles, (
        "modules that import each other, directly or through others (move the shared piece to the "
        f"module it belongs to, which both import): {cycles}"
    )


def test_the_circle_check_finds_circles_of_any_length(tmp_path):
    files = {
        "__init__.py": "",
        "a.py": "from .b import f\n",
        "b.py": "def f():\n    from . import c\n",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import g\n",
        "d.py": "from tritonscope import a\n",
        "e.py": "import tritonscope.f\n",
        "f.py": "from tritonscope.e import x\n",
    }
    for name, text in files.items():
        (tmp_path / "tritonscope" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "tritonscope" / name).write_text(text)
    graph = import_graph(tmp_path)
    assert graph["tritonscope.d"] == {"tritonscope.a"} and graph["tritonscope.c"] == {"tritonscope.a"}
    assert import_cycles(graph) == [
        ["tritonscope.a", "tritonscope.b", "tritonscope.c"],
        ["tritonscope.e", "tritonscope.f"],
    ]


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


_EXPLORER_BLOCKED = """
import asyncio, importlib.abc, sys

class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("triton", "torch"):
            raise ImportError(f"blocked: {name}")
        return None

sys.meta_path.insert(0, Blocked())
import tritonscope.cli.commands.explore  # the command as the CLI loads it
from tritonscope import explorer
from tritonscope.core.model import VariantRequest
from tritonscope.explorer.app import ExplorerApp

request = VariantRequest(file="sample:vector_add", target="sm90")
opening = explorer.start(request)
first = opening.first()

async def main():
    app = ExplorerApp(opening.compiles, request, first, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        while app.session.shown.unread is not None:  # the SASS, read after the stages
            await pilot.pause(0.1)
        await pilot.press("colon", "2", "1", "enter")
        print(app.query_one("#stage-0").border_title, sorted(app.query_one("#stage-0").linked)[:1])

asyncio.run(main())
opening.compiles.close()
print(sorted(m for m in sys.modules if m.split(".")[0] in ("triton", "torch")))
"""


def test_the_explorer_runs_with_triton_and_torch_blocked_in_its_process():
    """The explorer's process never imports Triton or torch: its compiles run in a child, whose
    results it draws (here through a real compile of the vector_add sample)."""
    done = subprocess.run([sys.executable, "-c", _EXPLORER_BLOCKED], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    title, imported = done.stdout.strip().splitlines()[-2:]
    assert title.startswith("SASS") and "[]" not in title and imported == "[]"


def test_the_agent_server_imports_with_triton_and_torch_blocked():
    """The agent server is a front end (docs/architecture.md): its workers compile, its own process
    never imports Triton or torch (tests/test_agent.py also runs it so)."""
    script = _BLOCKED.replace("tritonscope.render", "tritonscope.agent")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    on_disk = {_dotted(p) for p in (PACKAGE / "agent").rglob("*.py") if p.name != "__init__.py"}
    assert on_disk <= set(done.stdout.split()) and "tritonscope.agent.server" in on_disk


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


MODULE_LINES, CLASS_LINES = 450, 300  # DESIGN's limits: every module of the package, none exempt


def test_no_module_is_longer_than_450_lines():
    long = [f"{p.relative_to(PACKAGE)} ({n} lines)" for p in EVERY_MODULE if (n := _lines(p)) > MODULE_LINES]
    assert not long, f"split these along their seams: {long}"


def test_no_class_is_longer_than_300_lines():
    long = [
        f"{path.relative_to(PACKAGE)}:{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path in EVERY_MODULE
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > CLASS_LINES
    ]
    assert not long, f"give these classes' parts their own: {long}"


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def test_command_bodies_only_parse_call_and_emit():
    long = [
        f"{path}:{name} ({n} lines)"
        for path, name, n in _function_lengths()
        if path.parts[:2] == ("cli", "commands") and not name.startswith("_") and n > 25
    ]
    assert not long, long


# What tritonscope and a program it traces agree on (docs/architecture.md, "Captures"): one file,
# read by both processes, and the modules that run in the traced program.
CONTRACT = PACKAGE / "capture_hook" / "tritonscope_contract.py"
TRACED_SIDE = (PACKAGE / "capture_hook", PACKAGE / "triton_api" / "capture.py", PACKAGE / "triton_api" / "simulated")


def _contract_values() -> dict[str, object]:
    """The contract's constants, read from its source: NAME -> value."""
    tree = ast.parse(CONTRACT.read_text())
    assigned = [node for node in tree.body if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)]
    return {node.targets[0].id: node.value.value for node in assigned if isinstance(node.value, ast.Constant)}


def _code_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string constant of a module's code; docstrings are prose, left out."""
    tree = ast.parse(source)
    documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, documented) and node.body and isinstance(node.body[0], ast.Expr)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def _spelled(paths, names: set[str]) -> list[str]:
    """Each string constant in the code of PATHS that contains one of NAMES, as file:line: text."""
    return [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in paths
        for line, text in _code_strings(path.read_text())
        if any(name in text for name in names)
    ]


def test_only_the_capture_contract_spells_what_tritonscope_shares_with_a_traced_program():
    """The traced program's environment variables anywhere (tritonscope, its tests, its benchmarks),
    and a capture's file names in tritonscope, are spelled only in the contract: every other module
    names them through it, so the two sides cannot drift apart. (Tests spell the file names: they
    check a capture as a user sees it.)"""
    values = {v for v in _contract_values().values() if isinstance(v, str)}
    variables = {v for v in values if v.startswith("TRITONSCOPE_")}
    files = {v for v in values if "." in v}
    assert len(variables) >= 9 and {"kernels.jsonl", "launches.jsonl"} <= files
    others = [p for p in EVERY_MODULE if p != CONTRACT]
    broken = ROOT / "tests" / "kernels" / "syntax_error.py"  # a deliberately broken kernel file
    outside = sorted(p for p in [*(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")] if p != broken)
    spelled = _spelled(others, variables | files) + _spelled(outside, variables)
    assert not spelled, "name these through capture_hook/tritonscope_contract.py:\n" + "\n".join(spelled)


def test_the_traced_side_has_no_variable_of_its_own():
    """The hook, the launch recorder and the simulated GPU read no TRITONSCOPE_ variable that the
    contract does not name (a new one goes into the contract, where tritonscope sees it too)."""
    traced = [p for p in EVERY_MODULE if p != CONTRACT and any(p == s or s in p.parents for s in TRACED_SIDE)]
    assert len(traced) > 10 and PACKAGE / "capture_hook" / "sitecustomize.py" in traced
    assert not _spelled(traced, {"TRITONSCOPE_"})


def test_the_contract_check_sees_a_name_spelled_in_code_and_not_in_prose():
    probe = '"""Reads TRITONSCOPE_PROBE."""\nimport os\n\nlog = os.environ.get(f"TRITONSCOPE_{\'PROBE\'}")\n'
    assert _code_strings(probe) == [(4, "TRITONSCOPE_"), (4, "PROBE")]
    assert _code_strings('def f():\n    """TRITONSCOPE_X"""\n    return "TRITONSCOPE_X"\n') == [(3, "TRITONSCOPE_X")]


_TRACED = """
import importlib.abc, json, sys

class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "tritonscope" or name.startswith("tritonscope."):
            raise ImportError(f"blocked: {name}")
        return None

sys.meta_path.insert(0, Blocked())
import sitecustomize  # the hook, imported at start-up from the folder trace puts on the path

readers = {"hook": sitecustomize, "recorder": sitecustomize._capture_module(),
           "simulated": sitecustomize._simulated_device()}
contract = readers["hook"].contract
print(json.dumps({
    "files": {name: module.contract.__file__ for name, module in readers.items()},
    "one_module": all(module.contract is contract for module in readers.values()),
    "names": {k: v for k, v in vars(contract).items() if k.isupper()},
    "tritonscope": sorted(m for m in sys.modules if m == "tritonscope" or m.startswith("tritonscope.")),
}))
"""


def test_a_traced_process_reads_the_contract_tritonscope_reads(tmp_path):
    """The hook, the launch recorder and the simulated GPU, in a process with the path `trace` gives it
    and tritonscope blocked, read one contract: the very file, and the names, tritonscope reads."""
    import json

    from tritonscope.capture_hook import tritonscope_contract as contract
    from tritonscope.captures.environment import environment_for_capture

    path = environment_for_capture(tmp_path)["PYTHONPATH"]
    done = subprocess.run(
        [sys.executable, "-c", _TRACED], capture_output=True, text=True, cwd=tmp_path, env={"PYTHONPATH": path}
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert set(seen["files"].values()) == {str(CONTRACT)} and seen["one_module"], seen
    assert seen["names"] == {k: v for k, v in vars(contract).items() if k.isupper()} == _contract_values()
    assert seen["tritonscope"] == []


def test_commands_never_pick_a_renderer_or_write_a_file():
    """A command returns its result, or an Output naming its files (cli/output.py); the wrapper
    draws and writes them through render/registry.py and core/fileio.py."""
    found = []
    for path in sorted((PACKAGE / "cli" / "commands").glob("*.py")):
        found += [
            f"{path.name}:{n}: {m}"
            for n, m in every_import(path)
            if m.startswith(("tritonscope.render", "tritonscope.core.fileio"))
        ]
        source = path.read_text()
        found += [
            f"{path.name}: {call}" for call in ("write_bytes(", "write_text(", "open(", ".write(") if call in source
        ]
    assert not found, found


# A kernel source is classified once, by core/source.py's parser; a target is looked up by name only in
# core/ (a Variant's or a request's `target_info`, `targets.named` for a name read back) and resolved
# from a --target only there too: a request's once where it is made (VariantRequest.resolved), a
# command's own where it is given (forms.command_target).
SOURCE_PARSER = "core/source.py"
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
    """(line, what) of every look-up of the targets table by name, and every use of `resolve_target`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _names_targets(node.value):
            found.append((node.lineno, "TARGETS[...]"))
        elif isinstance(node, ast.Attribute) and node.attr == "get" and _names_targets(node.value):
            found.append((node.lineno, "TARGETS.get"))
        elif isinstance(node, ast.Compare) and any(map(_names_targets, node.comparators)):
            found.append((node.lineno, "in TARGETS"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").endswith("targets"):
            found += [(node.lineno, "resolve_target") for alias in node.names if alias.name == "resolve_target"]
        elif (
            isinstance(node, ast.Attribute) and node.attr == "resolve_target" and _names_targets(node.value, "targets")
        ):
            found.append((node.lineno, "resolve_target"))
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
    assert not found, f"{where} looks targets up by name: {found}; take Variant.target_info or a resolved Target"


def test_the_source_and_target_checks_find_what_they_forbid():
    probe = ast.parse(
        "from ..core.targets import TARGETS, resolve_target\n"
        "a = given.startswith('sample:')\n"
        "b = Path(request.file).is_dir()\n"
        "c = cache.is_reference(x)\n"
        "d = TARGETS[v.target]\n"
        "e = targets.TARGETS.get(name)\n"
        "f = name in TARGETS\n"
        "g = targets.resolve_target('auto')\n"
        "h = [t.name for t in TARGETS.values()]\n"
        "i = f'sample:{name}'\n"
    )
    assert source_classifications(probe) == [2, 3, 4]
    assert sorted(target_lookups(probe)) == [
        (1, "resolve_target"),
        (5, "TARGETS[...]"),
        (6, "TARGETS.get"),
        (7, "in TARGETS"),
        (8, "resolve_target"),
    ]
